// The approvals inbox: every pending call, a step's calls grouped, all of them or those waiting for the signed-in person.
import { html } from 'hono/html';
import type { Inbox } from '../console-reads';
import { byStep, stepGroup, viewerMayDecide, type Viewer } from './approval-card';
import type { Html } from './page-layout';

export { approvalCard, messageBubble, shorten } from './approval-card';

/** Where a run's page is. */
export function runPath(workflowId: string): string {
  return `/runs/${encodeURIComponent(workflowId)}`;
}

/** How the inbox is shown: the order, and whether only the calls the viewer may decide. */
export interface InboxView {
  order: 'oldest' | 'newest';
  /** "Waiting for me": only calls the signed-in person may decide. */
  mine: boolean;
}

/** The inbox's content: the approvals grouped by step, oldest or newest first, and the runs whose worker did not answer. */
export function inboxContent(inbox: Inbox, view: InboxView, viewer: Viewer, now: number): Html {
  const other = view.order === 'oldest' ? 'newest' : 'oldest';
  const mineCount = inbox.items.filter((item) => viewerMayDecide(viewer, item.approval)).length;
  const shown = view.mine ? inbox.items.filter((item) => viewerMayDecide(viewer, item.approval)) : inbox.items;
  const query = (order: string, mine: boolean) => `/?order=${order}${mine ? '&for=me' : ''}`;
  const filter = (mine: boolean, text: string) =>
    mine === view.mine
      ? html`<a href="${query(view.order, mine)}" aria-current="page">${text}</a>`
      : html`<a href="${query(view.order, mine)}">${text}</a>`;
  return html`<div id="content">
<h1>Approvals inbox <span class="muted small">(${inbox.items.length} pending)</span></h1>
<nav class="filters small" aria-label="Which approvals">${filter(false, `All (${inbox.items.length})`)} ${filter(true, `Waiting for me (${mineCount})`)}</nav>
<p class="small">Oldest request first is the order to work in; <a href="${query(other, view.mine)}">show ${other} first</a>. Calls the model made in one step are shown together.</p>
${shown.length === 0 ? html`<p class="card" id="inbox-empty">${view.mine && inbox.items.length > 0 ? `No call waits for ${viewer.identity}: the ${inbox.items.length} pending are for other approvers.` : 'No tool call is waiting for a decision.'}</p>` : ''}
${byStep(shown).map((group) => stepGroup(group, viewer, now))}
${
  inbox.unreachable.length > 0
    ? html`<h2>Waiting, but no worker answered</h2><p class="small">These runs wait for a decision but no worker answered their status query, so their calls cannot be shown. Start a worker on their task queue.</p>
<ul>${inbox.unreachable.map((run) => html`<li><a href="${runPath(run.workflowId)}">${run.workflowId}</a> (${run.agent ?? 'unknown agent'})</li>`)}</ul>`
    : ''
}
</div>`;
}
