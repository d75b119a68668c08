// A run's or thread's page: header, pending approvals, plan, the conversation, live text of a running step, and the actions.
import { html } from 'hono/html';
import type { RunPageData } from '../console-reads';
import { runPath } from './inbox-page';
import { byStep, stepGroup, type Viewer } from './approval-card';
import { utcTime, type Html } from './page-layout';
import { threadTurns, transcriptEntries, type TranscriptContext } from './transcript-view';

/** The run page's content (what live updates replace). */
export function runContent(data: RunPageData, csrf: string, now: number, viewer: Viewer): Html {
  const { run, status } = data;
  const finished = [...(data.transcript?.entries ?? [])].reverse().find((entry) => entry.kind === 'finished');
  const plan = status?.plan ?? (finished?.kind === 'finished' ? finished.result?.plan : null) ?? null;
  // Forks start after an executor step that finished: the model steps the history holds.
  const steps = (data.transcript?.entries ?? []).flatMap((entry) => (entry.kind === 'model' && entry.failure === null ? [entry.step] : []));
  const context: TranscriptContext = {
    pendingCalls: new Set((status?.pendingApprovals ?? []).map((approval) => `${approval.step}/${approval.callId}`)),
    waitingChildren: data.waitingChildren,
  };
  return html`<div id="content">
<h1>${run.kind === 'thread' ? 'Thread' : 'Run'} ${run.workflowId}</h1>
<p>Agent <strong>${run.agentVersion ?? run.agent ?? 'unknown'}</strong> · ${statusBadge(data)} · started ${utcTime(run.startTime)}
${run.parent ? html` · sub-agent of <a href="${runPath(run.parent)}" id="parent-run">${run.parent}</a>` : ''}
${run.costUsd !== null ? ` · $${run.costUsd.toFixed(4)}` : ''}${run.resourceId ? ` · for ${run.resourceId}` : ''}
${run.forkOf ? html` · fork of <a href="${runPath(run.forkOf)}">${run.forkOf}</a>` : ''}${run.evaluation ? ` · evaluation ${run.evaluation}` : ''}
${data.webUiUrl ? html` · <a href="${data.webUiUrl}" rel="noreferrer">Open in the Temporal Web UI</a>` : ''}</p>
${run.open && !status ? html`<p class="card timeout">No worker answered this run's status query: pending approvals and live text need a running worker.</p>` : ''}
${byStep((status?.pendingApprovals ?? []).map((approval) => ({ run, approval, conversation: [] }))).map((group) => stepGroup(group, viewer, now))}
${plan ? html`<details class="card" open><summary>Plan</summary><pre>${plan.text}</pre></details>` : ''}
<h2>Conversation</h2>
<div class="conversation" id="conversation">
${
  data.thread
    ? html`${transcriptEntries(
        run.workflowId,
        data.thread.outsideTurns.filter((entry) => entry.kind !== 'started'),
        context,
      )}${threadTurns(run.workflowId, data.thread.turns, context)}`
    : ''
}
${data.transcript ? transcriptEntries(run.workflowId, data.transcript.entries, context) : ''}
</div>
${run.open ? html`<div class="message assistant card" id="live-box"><span class="role">Writing now</span><p id="live" aria-live="polite"></p></div>` : ''}
${actions(data, csrf, steps)}
</div>`;
}

/** The run's status: its own, or that it waits for a decision in a sub-agent (its own status then still says running). */
function statusBadge(data: RunPageData): Html {
  const { run } = data;
  const waitingChild = run.status !== 'awaiting_approval' && data.waitingChildren.size > 0 ? [...data.waitingChildren.keys()][0]! : null;
  if (waitingChild)
    return html`<span class="status awaiting_approval" id="run-status">waiting for approval</span> in sub-agent <a href="${runPath(waitingChild)}">${waitingChild}</a>`;
  return html`<span class="status ${run.status}" id="run-status">${run.status.replace('_', ' ')}</span>`;
}

function actions(data: RunPageData, csrf: string, steps: number[]): Html {
  const { run } = data;
  const base = runPath(run.workflowId);
  const csrfField = html`<input type="hidden" name="csrf" value="${csrf}">`;
  const send =
    run.kind === 'thread' && run.open
      ? html`<form method="post" action="${base}/messages" class="inline card" data-action aria-label="Send a message">${csrfField}
<label>Message to the thread <textarea name="text" required maxlength="100000"></textarea></label><button type="submit">Send</button><p class="result" role="status"></p></form>`
      : '';
  const inject =
    run.kind === 'run' && run.open
      ? html`<form method="post" action="${base}/inject" class="inline card" data-action aria-label="Inject a message">${csrfField}
<label>Message for the agent's next step <textarea name="text" required maxlength="100000"></textarea></label><button type="submit">Inject</button><p class="result" role="status"></p></form>`
      : '';
  const uniqueSteps = [...new Set(steps)];
  const fork =
    run.kind === 'run' && uniqueSteps.length > 0
      ? html`<form method="post" action="${base}/fork" class="inline card" data-action data-confirm="Start a new run from this run's conversation?" aria-label="Fork">${csrfField}
<label>Fork after step <select name="fromStep">${uniqueSteps.map((step) => html`<option value="${step}">${step}</option>`)}</select></label>
<label>With a message (optional) <input type="text" name="text" maxlength="100000"></label><button type="submit">Fork</button><p class="result" role="status"></p></form>`
      : '';
  const cancel = run.open
    ? html`<form method="post" action="${base}/cancel" class="inline card" data-action data-confirm="${run.kind === 'thread' ? 'Close this thread once its turns are done?' : 'Cancel this run?'}" aria-label="Cancel">${csrfField}
<button type="submit" class="danger">${run.kind === 'thread' ? 'Close the thread' : 'Cancel the run'}</button><p class="result" role="status"></p></form>`
    : '';
  return html`<h2>Actions</h2>${send}${inject}${fork}${cancel}`;
}
