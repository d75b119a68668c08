// The approvals inbox: every pending call with what a person needs to decide it, and the approval card the run page reuses.
import { html } from 'hono/html';
import { describeCallDecider } from '../../protocol/call-deciders';
import type { Message } from '../../protocol/messages';
import type { ApprovalRequest } from '../../protocol/run-types';
import type { Inbox, ListedRun } from '../console-reads';
import { readable, relativeTime, utcTime, type Html } from './page-layout';

/** Where a run's page is. */
export function runPath(workflowId: string): string {
  return `/runs/${encodeURIComponent(workflowId)}`;
}

/** The inbox's content: the approvals, oldest or newest first, and the runs whose worker did not answer. */
export function inboxContent(inbox: Inbox, order: 'oldest' | 'newest', csrf: string, now: number): Html {
  const other = order === 'oldest' ? 'newest' : 'oldest';
  return html`<div id="content">
<h1>Approvals inbox <span class="muted small">(${inbox.items.length} pending)</span></h1>
<p class="small">Oldest request first is the order to work in; <a href="/?order=${other}">show ${other} first</a>.</p>
${inbox.items.length === 0 ? html`<p class="card" id="inbox-empty">No tool call is waiting for a decision.</p>` : ''}
${inbox.items.map((item) => approvalCard(item.run, item.approval, item.conversation, csrf, now))}
${
  inbox.unreachable.length > 0
    ? html`<h2>Waiting, but no worker answered</h2><p class="small">These runs wait for a decision but no worker answered their status query, so their calls cannot be shown. Start a worker on their task queue.</p>
<ul>${inbox.unreachable.map((run) => html`<li><a href="${runPath(run.workflowId)}">${run.workflowId}</a> (${run.agent ?? 'unknown agent'})</li>`)}</ul>`
    : ''
}
</div>`;
}

/** One pending call: tool, arguments, injected arguments, why it waits, the conversation before it, the deadline, approve or reject. */
export function approvalCard(run: ListedRun, approval: ApprovalRequest, conversation: Message[], csrf: string, now: number): Html {
  const injected = Object.entries(approval.injectedArgs);
  const key = `${run.workflowId}/${approval.approvalId}`;
  return html`<article class="card approval" data-approval="${key}" aria-labelledby="title-${approval.approvalId}-${run.runId}">
<h3 id="title-${approval.approvalId}-${run.runId}">${approval.toolName} <span class="muted small">in <a href="${runPath(run.workflowId)}">${run.workflowId}</a> · agent ${run.agent ?? 'unknown'} · ${run.kind} · step ${approval.step} · ${approval.approvalId}</span></h3>
<p class="small">Requested ${relativeTime(approval.requestedAt, now)} (${utcTime(approval.requestedAt)}).
<span class="timeout">Deadline ${relativeTime(approval.expiresAt, now)} (${utcTime(approval.expiresAt)}): if nobody decides by then, the call does not run and the agent is told it timed out.</span></p>
${Object.keys(approval.args).length === 0 ? html`<p class="muted">No arguments.</p>` : html`<dl>${Object.entries(approval.args).map(([name, value]) => html`<dt>${name}</dt><dd><pre>${readable(value)}</pre></dd>`)}</dl>`}
${injected.length > 0 ? html`<p class="small"><strong>Given by the model for you, not passed to the tool:</strong></p><dl>${injected.map(([name, value]) => html`<dt>${name}</dt><dd><pre>${readable(value)}</pre></dd>`)}</dl>` : ''}
${(approval.requiredBy ?? []).map((decider) => html`<p class="small">Required by ${describeCallDecider(decider)}</p>`)}
${conversation.length > 0 ? html`<details><summary>The conversation before this call (${conversation.length} messages)</summary><div class="conversation">${conversation.map(messageBubble)}</div></details>` : ''}
<form method="post" action="${runPath(run.workflowId)}/approvals/${encodeURIComponent(approval.approvalId)}" class="inline" data-action>
  <input type="hidden" name="csrf" value="${csrf}">
  <label>Reason (the agent reads it) <input type="text" name="reason" maxlength="2000"></label>
  <button type="submit" name="decision" value="approve" class="approve">Approve</button>
  <button type="submit" name="decision" value="reject" class="reject">Reject</button>
  <p class="result" role="status"></p>
</form>
</article>`;
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
