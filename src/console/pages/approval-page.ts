// An approval's own page (the link for a chat or an email), the second confirmation of a dangerous approval without the script, and styled error pages.
import { html } from 'hono/html';
import type { ApprovalView } from '../approval-reads';
import { approvalCard, approvalPath, type Viewer } from './approval-card';
import { utcTime, type Html } from './page-layout';

/** The approval's page: the call with every value whole, how it was decided, and its step's other waiting calls. */
export function approvalContent(view: ApprovalView, viewer: Viewer, now: number): Html {
  const { run, approval, decision } = view;
  const state = view.pending
    ? html`<p class="status awaiting_approval" id="approval-state">waiting for a decision</p>`
    : html`<p class="status ${decision?.outcome ?? 'unknown'}" id="approval-state">${decision ? decision.outcome.replace('_', ' ') : 'not waiting'}</p>`;
  const decided = view.pending
    ? undefined
    : html`<p class="result ${decision?.outcome === 'approved' ? 'ok' : 'refused'}" id="decision">${
        decision
          ? `${approval.toolName} (${approval.approvalId}) in run ${run.workflowId}: ${decision.outcome.replace('_', ' ')} by ${
              decision.decidedBy ?? (decision.outcome === 'timed_out' ? 'its timeout' : 'someone without a name')
            }${decision.reason ? `: ${decision.reason}` : ''}.`
          : `${approval.toolName} (${approval.approvalId}) does not wait for a decision any more.`
      }</p>`;
  return html`<div id="content">
<h1>Approval of ${approval.toolName} <span class="muted small">${approval.approvalId} in ${run.workflowId}</span></h1>
${state}
<p class="small">Requested ${utcTime(approval.requestedAt)}. <a href="/">The inbox</a> · <a href="/runs/${encodeURIComponent(run.workflowId)}">The run</a></p>
${
  view.stepmates.length > 0
    ? html`<p class="card small" id="stepmates">The model made this call together with ${view.stepmates.map(
        (other, index) =>
          html`${index > 0 ? ', ' : ''}<a href="${approvalPath(run.workflowId, other.approvalId)}">${other.toolName} (${other.approvalId})</a>`,
      )}, which still wait: each runs as soon as it is approved. To decide them together, use <a href="/runs/${encodeURIComponent(run.workflowId)}">the run's page</a> or the inbox.</p>`
    : ''
}
${approvalCard({ run, approval, conversation: view.conversation }, viewer, now, { full: true, ...(decided ? { decided } : {}) })}
</div>`;
}

/**
 * The second confirmation of an approval of a dangerous tool, for a browser without the script
 * (the script asks before it sends): the same form again, confirmed.
 */
export function confirmContent(action: string, message: string, fields: { csrf: string; reason: string; approvalIds?: string }): Html {
  return html`<div id="content"><h1>Confirm the approval</h1>
<p class="result refused" role="alert">${message}</p>
<form method="post" action="${action}" class="card">
  <input type="hidden" name="csrf" value="${fields.csrf}"><input type="hidden" name="confirmed" value="yes"><input type="hidden" name="reason" value="${fields.reason}">
  ${fields.approvalIds ? html`<input type="hidden" name="approvalIds" value="${fields.approvalIds}">` : ''}
  <button type="submit" name="decision" value="approve" class="approve">Yes, approve</button> <a href="/">No, back to the inbox</a>
</form></div>`;
}

/** A styled error page's content: what was not found (or went wrong), and where to go instead. */
export function errorContent(title: string, text: string): Html {
  return html`<div id="content" class="error-page"><h1>${title}</h1><p>${text}</p><p><a href="/">The approvals inbox</a> · <a href="/runs">All runs and threads</a></p></div>`;
}
