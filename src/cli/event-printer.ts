import { agentVersionLabel } from '../protocol/agent-reference';
import { describeCallDecider } from '../protocol/call-deciders';
import type { RunEvent } from '../protocol/run-events';
import type { ProgressNote } from '../protocol/run-types';

/** One readable line (or a few) per run event, for `run --follow` and `watch`. */
export function formatRunEvent(event: RunEvent): string | null {
  switch (event.type) {
    case 'run-started':
      return `▶ ${event.agent} started on ${event.model}`;
    case 'run-forked':
      return `▶ ${event.agent} forked from ${event.from.workflowId} after step ${event.step}, on ${event.model}${event.edits?.length ? ` with ${event.edits.length} ${event.edits.length === 1 ? 'edit' : 'edits'} (history shows them)` : ''}${event.message ? `: ${event.message}` : ''}`;
    case 'status-changed':
      if (event.phase === 'provider_limit') return `· step ${event.step}: waiting for provider limit`;
      return event.phase === 'model' ? `· step ${event.step}: model` : null;
    case 'text-produced':
      return `  ${event.text.split('\n').join('\n  ')}`;
    case 'tool-called':
      return `→ ${event.call.name}(${JSON.stringify(event.call.args)})`;
    case 'tool-completed': {
      const mark = event.isError ? '✗' : '✓';
      const content = event.content.length > 300 ? `${event.content.slice(0, 299)}…` : event.content;
      return `← ${event.toolName} ${mark} ${Math.round(event.metadata.execution_time_ms)} ms: ${content}`;
    }
    case 'output-rejected':
      return `! step ${event.step}: answer rejected by the output schema: ${event.reason}`;
    case 'approval-requested':
      return `? approval ${event.request.approvalId} needed for ${event.request.toolName}(${JSON.stringify(event.request.args)})${event.request.requiredBy ? ` (required by ${event.request.requiredBy.map(describeCallDecider).join(' and ')})` : ''}, expires ${new Date(event.request.expiresAt).toISOString()}`;
    case 'approval-decided':
      return `! approval ${event.approvalId} (${event.toolName}): ${event.outcome}${event.decidedBy ? ` by ${event.decidedBy}` : ''}${event.via ? ` via ${event.via}` : ''}${event.reason ? `: ${event.reason}` : ''}`;
    case 'approval-ignored':
      return `! ignored a decision for ${event.approvalId}: ${event.reason}`;
    case 'approval-refused':
      return `! refused an unverified ${event.decision} of ${event.approvalId}${event.claimedBy ? ` claiming to be ${event.claimedBy}` : ''}: ${event.reason}`;
    case 'skills-changed':
      return `✦ skills from ${event.source} (version ${event.version}${event.reloaded ? ', reloaded' : ''}): ${
        [...event.added.map((name) => `+${name}`), ...event.modified.map((name) => `~${name}`), ...event.removed.map((name) => `-${name}`)].join(
          ' ',
        ) || 'no change'
      }`;
    case 'skill-shadowed':
      return `! skill '${event.name}' from ${event.hidden} is hidden by the one from ${event.winner} (listed first in skill_sources)`;
    case 'skill-error':
      return `! skill file error: ${event.message}`;
    case 'handoff':
      return `⇄ step ${event.step}: ${event.from} hands the conversation to ${event.to}`;
    case 'message-injected':
      return `» injected before step ${event.step}: ${event.text}`;
    case 'plan-created':
      return `☰ plan (${event.plan.model}):\n  ${event.plan.text.split('\n').join('\n  ')}`;
    case 'budget-advisory':
      return `· context: ${event.promptTokens} of ${event.contextWindow} tokens (${event.percent}%)`;
    case 'context-compacted':
      return `! step ${event.step}: compacted ${event.removedMessages} older messages (${event.tokensBefore} tokens before)`;
    case 'budget-stopped':
      return `! step ${event.step}: budget limit: the prompt needs ${event.promptTokens} tokens, the limit is ${event.limitTokens}`;
    case 'cost-limit-stopped':
      return `! step ${event.step}: cost limit: ${event.detail}`;
    case 'mcp-progress':
      return formatProgress(event.toolName, event.progress);
    case 'mcp-server-unavailable':
      return `! MCP server ${event.server} is unavailable: ${event.error}`;
    case 'signal-ignored':
      return `! ignored a ${event.signal} signal: ${event.reason}`;
    case 'tool-unavailable':
      return `! step ${event.step}: no worker of this run has tool '${event.toolName}'`;
    case 'loop-detected':
      return `! step ${event.step}: loop detected (${event.description}, too many times in a row): ${event.action === 'nudged' ? 'the model was told' : 'the run stops'}`;
    case 'run-failed':
      return `■ failed at step ${event.step}${event.failureType ? ` (${event.failureType})` : ''}: ${event.message}`;
    case 'run-completed':
      return `■ finished: ${event.stopReason}`;
    case 'agent-resolved':
      return `· agent ${agentVersionLabel(event)}${event.previousVersion ? `, new since ${event.previousVersion}` : ''}`;
    case 'agent-unavailable':
      return `! agent ${event.name}: keeps version ${event.keptVersion} (${event.reason})`;
    case 'turn-started':
      return `▶ turn ${event.turn}: ${event.text}`;
    case 'message-queued':
      return `… queued for turn ${event.turn}: ${event.text}`;
    case 'turn-interrupt-requested':
      return `! turn ${event.turn} stops at its next safe point: a newer message interrupts it`;
    case 'turn-completed':
      return `■ turn ${event.turn} finished: ${event.stopReason}`;
    case 'thread-close-withdrawn':
      return `! the close (${event.reason}) is withdrawn: a message arrived while the thread was closing, and it reopens`;
    case 'thread-closed':
      return `■ thread closed after ${event.turnsCompleted} turn(s): ${event.reason}`;
    case 'hook-failed':
      return `! step ${event.step}: hook '${event.hook}' (${event.point}) threw, ${event.outcome === 'failed' ? 'which failed the call' : 'ignored'}: ${event.message}`;
    case 'instructions-resolved':
      return event.source === 'provider'
        ? `· instructions from provider '${event.provider}' (${event.characters} characters)`
        : `! instructions provider '${event.provider}' gave nothing, the static instructions are used: ${event.reason ?? ''}`;
  }
}

/** "… toolName: 3/10 message": a progress note of a running tool call. */
export function formatProgress(toolName: string, note: ProgressNote): string {
  return `… ${toolName}: ${note.progress}${note.total !== undefined ? `/${note.total}` : ''}${note.message ? ` ${note.message}` : ''}`;
}
