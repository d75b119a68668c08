// A run's transcript read as a conversation: messages, tool calls with arguments and results, approvals, sub-agents, markers.
import { agentVersionLabel } from '../../protocol/agent-reference';
import { html } from 'hono/html';
import type { ToolEntry, TranscriptEntry } from '../../history/history-entries';
import type { TurnTranscript } from '../../history/thread-transcript';
import { describeForkEdit } from '../../protocol/fork-edit-description';
import { runPath, shorten } from './inbox-page';
import { readable, utcTime, type Html } from './page-layout';

/** How much of a tool result the page shows before "show all". */
const RESULT_PREVIEW = 4_000;

/** The entries of a run (or of one thread turn) in the order they happened. */
export function transcriptEntries(workflowId: string, entries: TranscriptEntry[]): Html {
  return html`${entries.map((entry, index) => transcriptEntry(workflowId, entry, index))}`;
}

function transcriptEntry(workflowId: string, entry: TranscriptEntry, index: number): Html {
  switch (entry.kind) {
    case 'started':
      return html`${entry.continued ? html`<p class="marker">Continued as new: a new execution of the same run (${utcTime(Date.parse(entry.at))})</p>` : ''}
${entry.handoffFrom ? html`<p class="marker">Handed off from ${entry.handoffFrom} to ${entry.agent}</p>` : ''}
${entry.forkOf ? html`<p class="marker">Fork of <a href="${runPath(entry.forkOf.workflowId)}">${entry.forkOf.workflowId}</a> after step ${entry.forkOf.step}</p>` : ''}
${(entry.forkOf?.edits ?? []).map((edit) => html`<div class="marker">Step ${edit.step} · edited: ${describeForkEdit(edit)}<details><summary>Recorded, and what replaced it</summary><pre>${edit.recorded ?? "(not in the origin's history)"}</pre><pre>${edit.content}</pre></details></div>`)}
${entry.continued || entry.handoffFrom || entry.task === undefined ? '' : html`<div class="message user"><span class="role">Task for ${entry.agent} (${entry.model})</span><p>${entry.task}</p></div>`}`;
    case 'model':
      return html`${entry.text ? html`<div class="message assistant" data-step="${entry.step}"><span class="role">Agent · step ${entry.step}</span><p>${entry.text}</p></div>` : ''}
${entry.failure ? html`<p class="failure">Step ${entry.step} failed: ${entry.failure}</p>` : ''}
${entry.outputError ? html`<p class="marker">The answer did not fit the output type: ${entry.outputError}</p>` : ''}
${entry.overBudget ? html`<p class="marker">Over the token budget (${entry.overBudget.promptTokens} of ${entry.overBudget.limitTokens}): no model call</p>` : ''}`;
    case 'compaction':
      return html`<div class="marker">Compaction: ${entry.summarisedMessages} earlier messages summarised${entry.summary ? html`<details><summary>Summary</summary><pre>${entry.summary}</pre></details>` : ''}</div>`;
    case 'tool':
      return toolCard(workflowId, entry, index);
    case 'child':
      return html`<div class="card"><strong>Sub-agent ${entry.agent}</strong> · <a href="${runPath(entry.workflowId)}">${entry.workflowId}</a> · ${entry.status}
<p class="small">${shorten(entry.task, 400)}</p>${entry.result ? html`<p>${shorten(entry.result.output, 1_000)}</p>` : ''}${entry.failure ? html`<p class="failure">${entry.failure}</p>` : ''}</div>`;
    case 'signal':
    case 'update':
      return messageEntry(entry);
    case 'finished':
      return html`<p class="marker" id="finished">Finished: ${entry.status}${entry.result ? ` (${entry.result.stopReason}${entry.result.stopDetail ? `: ${entry.result.stopDetail}` : ''})` : ''}${entry.failure ? ` · ${entry.failure}` : ''}</p>`;
    case 'mcp-tools':
      return entry.unavailable.length > 0
        ? html`<p class="marker">MCP servers unavailable: ${entry.unavailable.map((server) => server.server).join(', ')}</p>`
        : html``;
    case 'skills-loaded':
      return html`<p class="marker">Skills loaded: ${entry.sources.flatMap((source) => source.skills).join(', ') || 'none'}</p>`;
  }
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
function toolCard(workflowId: string, entry: ToolEntry, index: number): Html {
  const result = entry.result;
  const metadata = result?.metadata;
  const approval =
    metadata && metadata.approval_status !== 'not_required'
      ? html`<p class="small">Approval: <strong>${metadata.approval_status}</strong>${metadata.approval_decided_by ? html` by <strong>${metadata.approval_decided_by}</strong>` : ''}${metadata.approval_reason ? `: ${metadata.approval_reason}` : ''}</p>`
      : '';
  const artifactId = metadata?.offloaded_artifact_id ?? null;
  const resultId = `result-${index}`;
  return html`<div class="card tool" data-tool="${entry.tool}" data-step="${entry.step}">
<h3>${entry.tool} <span class="muted small">step ${entry.step} · ${entry.via}${entry.server ? ` ${entry.server}` : ''}${entry.durationMs !== null ? ` · ${entry.durationMs} ms` : ''}${entry.attempts > 1 ? ` · ${entry.attempts} attempts` : ''}</span></h3>
<details open><summary>Arguments</summary><pre>${readable(entry.args)}</pre></details>
${approval}
${
  result
    ? html`<details open><summary>Result${result.isError ? ' (error)' : ''}</summary><pre id="${resultId}" class="${result.isError ? 'failure' : ''}">${shorten(result.content, RESULT_PREVIEW)}</pre>
${artifactId ? html`<button type="button" data-artifact="${runPath(workflowId)}/artifacts/${encodeURIComponent(artifactId)}" aria-controls="${resultId}">Load the full result (stored outside the history)</button>` : ''}</details>`
    : entry.failure
      ? html`<p class="failure">${entry.failure}</p>`
      : html`<p class="muted">Running…</p>`
}
</div>`;
}

/** A thread's turns: the messages each answered, then what the agent did and said. */
export function threadTurns(threadId: string, turns: TurnTranscript[]): Html {
  return html`${turns.map(
    (turn) => html`<section aria-label="Turn ${turn.turn}" class="conversation" data-turn="${turn.turn}">
<p class="marker">Turn ${turn.turn}${turn.result?.agentVersion ? ` · ${agentVersionLabel(turn.result.agentVersion)}` : ''}</p>
${turn.messages.map((message) => html`<div class="message user"><span class="role">User${message.disposition === 'injected' ? ' (joined the running turn)' : ''}</span><p>${message.text}</p></div>`)}
${transcriptEntries(threadId, turn.entries)}
${
  turn.result
    ? html`${turn.entries.some((entry) => entry.kind === 'model' && entry.text === turn.result!.output) ? '' : html`<div class="message assistant"><span class="role">Agent</span><p>${turn.result.output}</p></div>`}
<p class="marker">Turn ${turn.turn} ended: ${turn.result.stopReason}</p>`
    : ''
}
</section>`,
  )}`;
}
