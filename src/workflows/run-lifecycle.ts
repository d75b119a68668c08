import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { jsonBytes, newestWithin, PAYLOAD_LIMIT_BYTES } from '../shared/payload-size';
import type { AgentRunResult, RunPhase, StopReason } from '../shared/run-types';
import { AgentNameAttribute, AgentStatusAttribute } from '../shared/search-attributes';
import type { RunState } from './run-state';

/**
 * Thrown inside a run to end it early with a normal result: `agentRun` catches it and finishes
 * with its reason. It never escapes the workflow.
 */
export class RunStop {
  constructor(
    readonly reason: StopReason,
    readonly detail: string,
  ) {}
}

/**
 * Marks the run as started: its name and status as search attributes (unless the starter or
 * the run it continues set them) and, on a fresh run, the `run-started` event.
 */
export function announceRun(state: RunState): void {
  const { config } = state;
  if (!workflowInfo().typedSearchAttributes.get(AgentNameAttribute)) {
    upsertSearchAttributes([
      { key: AgentNameAttribute, value: config.name },
      { key: AgentStatusAttribute, value: 'running' },
    ]);
  }
  if (!state.carried) state.events.push({ type: 'run-started', agent: config.name, model: config.model, task: state.input.task });
}

/** Enters a phase: the status query, the event log and the Web UI's current details follow. */
export function enterPhase(state: RunState, next: RunPhase): void {
  state.phase = next;
  state.events.push({ type: 'status-changed', phase: next, step: state.step });
  setCurrentDetails(`step ${state.step} of ${state.config.max_steps}: ${next}`);
}

/** Ends the run with `reason`: status `completed` everywhere, and the run's result. */
export function finishRun(state: RunState, reason: StopReason, output: string, extra: Partial<AgentRunResult> = {}): AgentRunResult {
  state.stopReason = reason;
  state.phase = 'completed';
  upsertSearchAttributes([{ key: AgentStatusAttribute, value: 'completed' }]);
  state.events.push({ type: 'run-completed', stopReason: reason, output });
  setCurrentDetails(`completed: ${reason}`);
  return boundedResult({
    output,
    stopReason: reason,
    steps: state.step,
    usage: state.usage,
    toolResults: state.toolResults,
    toolResultCount: state.toolResultCount,
    ...(state.plan ? { plan: state.plan } : {}),
    ...(state.handoffs.length > 0 ? { agent: state.config.name, handoffs: state.handoffs } : {}),
    ...extra,
  });
}

/**
 * A result Temporal accepts (a too-large one would fail the final workflow task for ever): over
 * PAYLOAD_LIMIT_BYTES, the oldest kept tool results go first, then the answer is cut with a note
 * (the whole answer stays in the history, in the last model step's result).
 */
export function boundedResult(result: AgentRunResult): AgentRunResult {
  if (jsonBytes(result) <= PAYLOAD_LIMIT_BYTES) return result;
  const { toolResults, ...rest } = result;
  const room = PAYLOAD_LIMIT_BYTES - jsonBytes({ ...rest, toolResults: [] });
  if (room > 0) return { ...rest, toolResults: newestWithin(toolResults, room) };
  const note = '\n[answer cut: the whole answer is in the run\'s history]';
  const keep = Math.max(0, rest.output.length - (jsonBytes(rest) - PAYLOAD_LIMIT_BYTES) - note.length - 1_000);
  return { ...rest, structuredOutput: undefined, output: `${rest.output.slice(0, keep)}${note}`, toolResults: [] };
}
