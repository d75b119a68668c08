// An approval card (one gated call: what the tool does, its arguments, who may decide it, the decision form) and a step's calls as one group.
import { html } from 'hono/html';
import { describeCallDecider } from '../../protocol/call-deciders';
import type { Message } from '../../protocol/messages';
import type { ApprovalRequest } from '../../protocol/run-types';
import { decidersOf, mayDecide, type ApproverRule } from '../console-access';
import type { ListedRun } from '../console-reads';
import { argumentList } from './argument-view';
import { relativeTime, utcTime, type Html } from './page-layout';

/** Who looks at a card: what they may decide decides which buttons they get. */
export interface Viewer {
  identity: string;
  /** The console's approver rules (none: everyone signed in decides every tool). */
  approvers: readonly ApproverRule[] | undefined;
  csrf: string;
}

/** A pending call with the run it belongs to and the conversation before it. */
export interface CardItem {
  run: ListedRun;
  approval: ApprovalRequest;
  conversation: Message[];
}

/** Where an approval's own page is: a stable link for a chat or an email. */
export function approvalPath(workflowId: string, approvalId: string): string {
  return `/approvals/${encodeURIComponent(workflowId)}/${encodeURIComponent(approvalId)}`;
}

function runLink(workflowId: string): string {
  return `/runs/${encodeURIComponent(workflowId)}`;
}

/** Whether `viewer` may decide `approval`. */
export function viewerMayDecide(viewer: Viewer, approval: ApprovalRequest): boolean {
  return mayDecide(viewer.approvers, viewer.identity, approval.toolName);
}

/**
 * One pending call: the tool and what it does, its arguments (sizes, beginning and end always
 * shown; whole with `full`), why it waits, who may decide it, the deadline, the conversation before
 * it, and approve or reject for those who may.
 */
export function approvalCard(item: CardItem, viewer: Viewer, now: number, options: { full?: boolean; decided?: Html } = {}): Html {
  const { run, approval, conversation } = item;
  const injected = Object.keys(approval.injectedArgs).length > 0;
  const titleId = `title-${approval.approvalId}-${run.runId}`;
  return html`<article class="card approval${approval.dangerous ? ' dangerous' : ''}" data-approval="${run.workflowId}/${approval.approvalId}" data-tool="${approval.toolName}" aria-labelledby="${titleId}">
<h3 id="${titleId}">${approval.toolName}${approval.dangerous ? html` <span class="badge danger">dangerous</span>` : ''} <span class="muted small">in <a href="${runLink(run.workflowId)}">${run.workflowId}</a> · agent ${run.agent ?? 'unknown'} · ${run.kind}${run.parent ? html` (sub-agent of <a href="${runLink(run.parent)}" class="parent-run">${run.parent}</a>)` : ''} · step ${approval.step} · ${approval.approvalId}</span></h3>
${approval.toolDescription ? html`<p class="tool-description"><strong>What ${approval.toolName} does:</strong> ${approval.toolDescription}</p>` : html`<p class="tool-description muted small">The worker gave no description of ${approval.toolName}.</p>`}
<p class="small">Requested ${relativeTime(approval.requestedAt, now)} (${utcTime(approval.requestedAt)}).
<span class="timeout">Deadline ${relativeTime(approval.expiresAt, now)} (${utcTime(approval.expiresAt)}): if nobody decides by then, the call does not run and the agent is told it timed out.</span></p>
${Object.keys(approval.args).length === 0 ? html`<p class="muted">No arguments.</p>` : argumentList(approval.args, options.full === true)}
${injected ? html`<p class="small"><strong>Given by the model for you, not passed to the tool:</strong></p>${argumentList(approval.injectedArgs, options.full === true)}` : ''}
${(approval.requiredBy ?? []).map((decider) => html`<p class="small">Required by ${describeCallDecider(decider)}</p>`)}
${conversation.length > 0 ? html`<details><summary>The conversation before this call (${conversation.length} messages)</summary><div class="conversation">${conversation.map(messageBubble)}</div></details>` : ''}
${options.decided ?? html`${whoDecides(approval, viewer)}${viewerMayDecide(viewer, approval) ? decisionForm(run, approval, viewer.csrf) : ''}`}
<p class="small"><a href="${approvalPath(run.workflowId, approval.approvalId)}" class="approval-link">This approval's own page</a> (a link to share)</p>
</article>`;
}

/** Who may decide the call, and whether the viewer is one of them. */
function whoDecides(approval: ApprovalRequest, viewer: Viewer): Html {
  const deciders = decidersOf(viewer.approvers, approval.toolName);
  const who = deciders ? `${deciders.join(', ')} (the console's approver rules)` : 'anyone signed in';
  const you = viewerMayDecide(viewer, approval)
    ? html`<strong class="may">You may decide it.</strong>`
    : html`<strong class="may-not">You may not decide it: ask one of them.</strong>`;
  return html`<p class="deciders small">Who may decide calls of ${approval.toolName}: ${who}. ${you}</p>`;
}

function decisionForm(run: ListedRun, approval: ApprovalRequest, csrf: string): Html {
  return html`<form method="post" action="${runLink(run.workflowId)}/approvals/${encodeURIComponent(approval.approvalId)}" class="inline" data-action${dangerQuestion([approval], run.workflowId)}>
  <input type="hidden" name="csrf" value="${csrf}">
  <label>Reason (the agent reads it) <input type="text" name="reason" maxlength="2000"></label>
  <button type="submit" name="decision" value="approve" class="approve">Approve</button>
  <button type="submit" name="decision" value="reject" class="reject">Reject</button>
  <p class="result" role="status"></p>
</form>`;
}

/** The `data-danger` question the script asks before an approval of dangerous tools is sent. */
function dangerQuestion(approvals: readonly ApprovalRequest[], workflowId: string): Html | '' {
  const dangerous = approvals.filter((approval) => approval.dangerous);
  if (dangerous.length === 0) return '';
  const lines = dangerous.map(
    (approval) => `${approval.toolName} (${approval.approvalId})${approval.toolDescription ? `: ${approval.toolDescription}` : ''}`,
  );
  const question = `The agent's config marks this tool as dangerous:\n\n${lines.join('\n')}\n\nApprove in run ${workflowId}?`;
  return html` data-danger="${question}"`;
}

/**
 * The calls of one model step that wait together, as one group: each card decides its call alone,
 * and the group's form decides them all, in call order (offered to those who may decide every one).
 * A step with one pending call is its card alone.
 */
export function stepGroup(items: readonly CardItem[], viewer: Viewer, now: number): Html {
  if (items.length === 1) return approvalCard(items[0]!, viewer, now);
  const { run, approval } = items[0]!;
  const approvals = items.map((item) => item.approval);
  const all = approvals.every((each) => viewerMayDecide(viewer, each));
  const ids = approvals.map((each) => each.approvalId).join(',');
  return html`<section class="step-group" data-step-group="${run.workflowId}/${approval.step}" aria-label="Step ${approval.step} of ${run.workflowId}">
<h2 class="group-title">${items.length} calls the model made together in step ${approval.step} of <a href="${runLink(run.workflowId)}">${run.workflowId}</a></h2>
<p class="small">Each call runs as soon as it is approved: when one depends on another, decide them together (they are decided in this order: ${approvals.map((each) => each.toolName).join(', ')}).</p>
${
  all
    ? html`<form method="post" action="${runLink(run.workflowId)}/steps/${approval.step}/decisions" class="inline card group-form" data-action${dangerQuestion(approvals, run.workflowId)}>
  <input type="hidden" name="csrf" value="${viewer.csrf}"><input type="hidden" name="approvalIds" value="${ids}">
  <label>Reason for all (the agent reads it) <input type="text" name="reason" maxlength="2000"></label>
  <button type="submit" name="decision" value="approve" class="approve">Approve all ${items.length}</button>
  <button type="submit" name="decision" value="reject" class="reject">Reject all ${items.length}</button>
  <p class="result" role="status"></p>
</form>`
    : html`<p class="small muted">You may not decide every call of this step: decide those you may one by one.</p>`
}
${items.map((item) => approvalCard(item, viewer, now))}
</section>`;
}

/** Items grouped by run and step, groups in the order of their first item. */
export function byStep(items: readonly CardItem[]): CardItem[][] {
  const groups = new Map<string, CardItem[]>();
  for (const item of items) {
    const key = `${item.run.workflowId}\n${item.approval.step}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.values()].map((group) =>
    group.sort((a, b) => a.approval.approvalId.localeCompare(b.approval.approvalId, 'en', { numeric: true })),
  );
}

/** One conversation message as a bubble (tool results shortened: the run page has them in full). */
export function messageBubble(message: Message): Html {
  if (message.role === 'tool')
    return html`<div class="message assistant"><span class="role">Result of ${message.toolName}</span><p>${shorten(message.content, 600)}</p></div>`;
  const calls =
    message.role === 'assistant' && message.toolCalls.length > 0
      ? html`<p class="small muted">Calls ${message.toolCalls.map((call) => call.name).join(', ')}</p>`
      : '';
  return html`<div class="message ${message.role}"><span class="role">${message.role === 'user' ? 'User' : 'Agent'}</span>${message.content ? html`<p>${message.content}</p>` : ''}${calls}</div>`;
}

/** `text` cut to `max` characters, saying so. */
export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}
