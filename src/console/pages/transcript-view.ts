// A run's transcript read as a conversation: messages, tool calls with arguments and results, approvals, sub-agents, markers.
import { agentVersionLabel } from '../../protocol/agent-reference';
import { html } from 'hono/html';
import type { ToolEntry, TranscriptEntry } from '../../history/history-entries';
import type { TurnTranscript } from '../../history/thread-transcript';
import { describeForkEdit } from '../../protocol/fork-edit-description';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import { failureHint } from '../failure-hints';
import { runPath, shorten } from './inbox-page';
import { readable, utcTime, type Html } from './page-layout';

/** How much of a tool result the page shows before "show all". */
const RESULT_PREVIEW = 4_000;

/** What the page knows besides the history: what the run (and its sub-agents) wait for now. */
export interface TranscriptContext {
  /** Gated calls waiting for a decision now, as `<step>/<callId>`. */
  pendingCalls?: ReadonlySet<string>;
  /** Open sub-agents that wait for a decision, by workflow id: the tools they wait to call. */
  waitingChildren?: ReadonlyMap<string, string[]>;
}

/** The entries of a run (or of one thread turn) in the order they happened. */
export function transcriptEntries(workflowId: string, entries: TranscriptEntry[], context: TranscriptContext = {}): Html {
  // A failed run's error is shown once, where it ends the run: the step that caused it points there.
  const finished = entries.find((entry) => entry.kind === 'finished');
  const runFailure = finished?.kind === 'finished' ? finished.failure : null;
  return html`${entries.map((entry, index) => transcriptEntry(workflowId, entry, index, context, runFailure))}`;
}

function transcriptEntry(workflowId: string, entry: TranscriptEntry, index: number, context: TranscriptContext, runFailure: string | null): Html {
  switch (entry.kind) {
    case 'started':
      return html`${entry.continued ? html`<p class="marker">Continued as new: a new execution of the same run (${utcTime(Date.parse(entry.at))})</p>` : ''}
${entry.handoffFrom ? html`<p class="marker">Handed off from ${entry.handoffFrom} to ${entry.agent}</p>` : ''}
${entry.forkOf ? html`<p class="marker">Fork of <a href="${runPath(entry.forkOf.workflowId)}">${entry.forkOf.workflowId}</a> after step ${entry.forkOf.step}</p>` : ''}
${(entry.forkOf?.edits ?? []).map((edit) => html`<div class="marker">Step ${edit.step} · edited: ${describeForkEdit(edit)}<details><summary>Recorded, and what replaced it</summary><pre>${edit.recorded ?? "(not in the origin's history)"}</pre><pre>${edit.content}</pre></details></div>`)}
${entry.continued || entry.handoffFrom || entry.task === undefined ? '' : html`<div class="message user"><span class="role">Task for ${entry.agent}</span> <span class="model small muted">${entry.model}</span><p>${entry.task}</p></div>`}`;
    case 'model':
      return html`${entry.text ? html`<div class="message assistant" data-step="${entry.step}"><span class="role">Agent · step ${entry.step}</span><p>${entry.text}</p></div>` : ''}
${entry.failure ? (runFailure && sameFailure(entry.failure, runFailure) ? html`<p class="failure">Step ${entry.step} failed: it ended the run (the error is below)</p>` : html`<p class="failure">Step ${entry.step} failed: ${entry.failure}</p>`) : ''}
${entry.outputError ? html`<p class="marker">The answer did not fit the output type: ${entry.outputError}</p>` : ''}
${entry.overBudget ? html`<p class="marker">Over the token budget (${entry.overBudget.promptTokens} of ${entry.overBudget.limitTokens}): no model call</p>` : ''}`;
    case 'compaction':
      return html`<div class="marker">Compaction: ${entry.summarisedMessages} earlier messages summarised${entry.summary ? html`<details><summary>Summary</summary><pre>${entry.summary}</pre></details>` : ''}</div>`;
    case 'tool':
      return toolCard(workflowId, entry, index, context);
    case 'child':
      return html`<div class="card" data-child="${entry.workflowId}"><strong>Sub-agent ${entry.agent}</strong> · <a href="${runPath(entry.workflowId)}">${entry.workflowId}</a> · ${childState(entry.workflowId, entry.status, context)}
<p class="small">${shorten(entry.task, 400)}</p>${entry.result ? html`<p>${shorten(entry.result.output, 1_000)}</p>` : ''}${entry.failure ? html`<p class="failure">${entry.failure}</p>` : ''}</div>`;
    case 'signal':
    case 'update':
      return messageEntry(entry);
    case 'finished':
      return finishedEntry(entry);
    case 'mcp-tools':
      return entry.unavailable.length > 0
        ? html`<p class="marker">MCP servers unavailable: ${entry.unavailable.map((server) => server.server).join(', ')}</p>`
        : html``;
    case 'skills-loaded':
      return html`<p class="marker">Skills loaded: ${entry.sources.flatMap((source) => source.skills).join(', ') || 'none'}</p>`;
  }
}

/** The end of the run: how it ended (the stop reason when it says more), and a failure once, with its code and what to do. */
function finishedEntry(entry: Extract<TranscriptEntry, { kind: 'finished' }>): Html {
  const result = entry.result;
  const reason =
    result && (result.stopReason !== entry.status || result.stopDetail) ? [result.stopReason, result.stopDetail].filter(Boolean).join(': ') : '';
  const hint = failureHint(entry.failureType);
  return html`<p class="marker" id="finished">Finished: ${entry.status}${reason ? ` (${reason})` : ''}</p>
${
  entry.failure
    ? html`<div class="card run-failure" id="run-failure" role="alert"><strong>The run failed</strong>${entry.failureType ? html` · <code class="error-code">${entry.failureType}</code>` : ''}
<p>${entry.failure}</p>${hint ? html`<p class="small"><strong>What to do:</strong> ${hint}</p>` : ''}</div>`
    : ''
}`;
}

/** A step's failure and the run's are one error when either message holds the other (the run's adds its causes). */
function sameFailure(step: string, run: string): boolean {
  return run.includes(step) || step.includes(run);
}

/** A sub-agent's state: what the history says, or that it waits for a decision now. */
function childState(childId: string, status: string, context: TranscriptContext): Html {
  const waitsFor = context.waitingChildren?.get(childId);
  return waitsFor
    ? html`<span class="status awaiting_approval">waiting for approval</span> of ${waitsFor.join(', ') || 'a call'} (<a href="${runPath(childId)}">decide on its page</a>)`
    : html`${status}`;
}

/** A decision, an injected message, a thread message: what people sent the run. */
function messageEntry(entry: Extract<TranscriptEntry, { kind: 'signal' | 'update' }>): Html {
  const payload = (entry.payload ?? {}) as Record<string, unknown>;
  const ignored = entry.ignored ? html` <span class="failure">(ignored: ${entry.ignored})</span>` : '';
  if (entry.name === 'approval' || entry.name === 'decideApproval') {
    const verb = payload.decision === 'approve' ? 'Approved' : 'Rejected';
    return html`<p class="marker">${verb} ${String(payload.approvalId ?? '')} by ${String(payload.decidedBy ?? 'someone unnamed')}${payload.reason ? `: ${String(payload.reason)}` : ''}${ignored}</p>`;
  }
  if (entry.name === 'injectMessage' || entry.name === 'injectMessageChecked') {
    return html`<div class="message user"><span class="role">Injected message</span><p>${String(payload.text ?? '')}</p>${ignored}</div>`;
  }
  // Thread messages are shown with their turn; other messages as a line.
  if (entry.name === 'sendMessage' || entry.name === 'awaitTurn' || entry.name === 'thread') return html``;
  return html`<p class="marker">${entry.kind} ${entry.name}${ignored}</p>`;
}

/** A tool call: arguments, result (long ones on demand, offloaded ones from the artifact store), and its approval. */
function toolCard(workflowId: string, entry: ToolEntry, index: number, context: TranscriptContext): Html {
  const result = entry.result;
  const injected = result ? Object.keys(result.metadata.injected_args) : [];
  const args =
    injected.length > 0 && typeof entry.args === 'object' && entry.args !== null
      ? splitInjectedArgs(entry.args as Record<string, unknown>, injected)
      : { executable: entry.args, injected: {} };
  const metadata = result?.metadata;
  const approval =
    metadata && metadata.approval_status !== 'not_required'
      ? html`<p class="small">Approval: <strong>${metadata.approval_status}</strong>${metadata.approval_decided_by ? html` by <strong>${metadata.approval_decided_by}</strong>` : ''}${metadata.approval_reason ? `: ${metadata.approval_reason}` : ''}</p>`
      : '';
  const artifactId = metadata?.offloaded_artifact_id ?? null;
  const resultId = `result-${index}`;
  return html`<div class="card tool" data-tool="${entry.tool}" data-step="${entry.step}">
<h3>${entry.tool} <span class="muted small">step ${entry.step} · ${entry.via}${entry.server ? ` ${entry.server}` : ''}${timing(entry)}${entry.attempts > 1 ? ` · ${entry.attempts} attempts` : ''}</span></h3>
<details open><summary>Arguments</summary><pre>${readable(args.executable)}</pre></details>
${injected.length > 0 ? html`<details open class="injected"><summary>Given by the model for the reviewer, not passed to the tool</summary><pre>${readable(args.injected)}</pre></details>` : ''}
${approval}
${
  result
    ? html`<details open><summary>Result${result.isError ? ' (error)' : ''}</summary><pre id="${resultId}" class="${result.isError ? 'failure' : ''}">${shorten(result.content, RESULT_PREVIEW)}</pre>
${artifactId ? html`<button type="button" data-artifact="${runPath(workflowId)}/artifacts/${encodeURIComponent(artifactId)}" aria-controls="${resultId}">Load the full result (stored outside the history)</button>` : ''}</details>`
    : entry.failure
      ? html`<p class="failure">${entry.failure}</p>`
      : pendingState(entry, context)
}
</div>`;
}

/** A call without a result: waiting for a decision, for its sub-agents, or running. */
function pendingState(entry: ToolEntry, context: TranscriptContext): Html {
  if (context.pendingCalls?.has(`${entry.step}/${entry.callId}`))
    return html`<p class="waiting" data-waiting="approval"><span class="status awaiting_approval">waiting for approval</span> The call has not run: it waits for a person's decision (above).</p>`;
  if (entry.tool.startsWith('spawn_') && (context.waitingChildren?.size ?? 0) > 0)
    return html`<p class="waiting" data-waiting="sub-agent"><span class="status awaiting_approval">waiting for approval</span> A sub-agent of this call waits for a decision (below).</p>`;
  return html`<p class="muted">Running…</p>`;
}

/** How long the tool ran: nothing for a call that never ran (rejected, timed out, denied: the workflow answered it). */
function timing(entry: ToolEntry): string {
  const status = entry.result?.metadata.status;
  if (status === 'rejected' || status === 'timed_out' || status === 'denied') return ' · did not run';
  // The workflow's own answers (a refused sub-agent job, an unknown tool) take no time worth a number.
  if (entry.durationMs === null || (entry.via === 'workflow' && entry.durationMs === 0)) return '';
  return ` · ${entry.durationMs} ms`;
}

/** A thread's turns: the messages each answered, then what the agent did and said. */
export function threadTurns(threadId: string, turns: TurnTranscript[], context: TranscriptContext = {}): Html {
  return html`${turns.map(
    (turn) => html`<section aria-label="Turn ${turn.turn}" class="conversation" data-turn="${turn.turn}">
<p class="marker">Turn ${turn.turn}${turn.result?.agentVersion ? ` · ${agentVersionLabel(turn.result.agentVersion)}` : ''}</p>
${turn.messages.map((message) => html`<div class="message user"><span class="role">User${message.disposition === 'injected' ? ' (joined the running turn)' : ''}</span><p>${message.text}</p></div>`)}
${transcriptEntries(threadId, turn.entries, context)}
${
  turn.result
    ? html`${turn.entries.some((entry) => entry.kind === 'model' && entry.text === turn.result!.output) ? '' : html`<div class="message assistant"><span class="role">Agent</span><p>${turn.result.output}</p></div>`}
<p class="marker">Turn ${turn.turn} ended: ${turn.result.stopReason}</p>`
    : ''
}
</section>`,
  )}`;
}
