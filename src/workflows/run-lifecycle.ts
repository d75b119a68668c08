import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
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
  return {
    output,
    stopReason: reason,
    steps: state.step,
    usage: state.usage,
    toolResults: state.toolResults,
    ...(state.plan ? { plan: state.plan } : {}),
    ...(state.handoffs.length > 0 ? { agent: state.config.name, handoffs: state.handoffs } : {}),
    ...extra,
  };
}
