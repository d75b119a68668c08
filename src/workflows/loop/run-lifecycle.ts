import { ApplicationFailure, isCancellation, setCurrentDetails, TemporalFailure, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { jsonBytes, newestWithin, PAYLOAD_LIMIT_BYTES } from '../../protocol/payload-size';
import type { AgentRunResult, ApprovalRequest, RunPhase, StopReason } from '../../protocol/run-types';
import { AgentNameAttribute, AgentStatusAttribute } from '../../protocol/search-attributes';
import { continuationHeading } from '../rules/continuation-heading';
import { describeWait } from './approval-gate';
import { costAttributes } from '../rules/cost-attribute';
import { taskOf, type LoopState } from './loop-state';

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

/** Marks the execution `continued` before it continues as new. */
export function markContinued(state: LoopState, next: string): void {
  upsertSearchAttributes([{ key: AgentStatusAttribute, value: 'continued' }, ...costAttributes(state)]);
  const how = next === state.config.name ? 'the history was long' : `handed off to ${next}`;
  setDetails(state, `continued as new after step ${state.step - 1}: ${how}`);
}

/**
 * Marks the run `failed` before `error` fails it: only for a deliberate failure (a Temporal
 * failure, such as a non-retryable model error), never for a cancellation, a continue-as-new or a
 * bug (a plain error retries the workflow task, it does not end the run).
 */
export function markFailed(state: LoopState, error: unknown): void {
  if (!(error instanceof TemporalFailure) || isCancellation(error)) return;
  state.phase = 'failed';
  state.events.push({
    type: 'run-failed',
    step: state.step,
    failureType: error instanceof ApplicationFailure ? (error.type ?? null) : null,
    message: error.message,
  });
  setDetails(state, `failed at step ${state.step}: ${error.message}`);
  upsertSearchAttributes([{ key: AgentStatusAttribute, value: 'failed' }, ...costAttributes(state)]);
}

/**
 * Marks the run as started: its name and status as search attributes (unless the starter or
 * the run it continues set them) and, on a fresh run, the `run-started` event.
 */
export function announceRun(state: LoopState): void {
  const { config } = state;
  if (!workflowInfo().typedSearchAttributes.get(AgentNameAttribute)) {
    upsertSearchAttributes([
      { key: AgentNameAttribute, value: config.name },
      { key: AgentStatusAttribute, value: 'running' },
    ]);
  }
  if (!state.carried) state.events.push({ type: 'run-started', agent: config.name, model: config.model, task: taskOf(state) });
}

/** Enters a phase: the status query, the event log and the Web UI's current details follow. */
export function enterPhase(state: LoopState, next: RunPhase): void {
  state.phase = next;
  state.events.push({ type: 'status-changed', phase: next, step: state.step });
  showDetails(state, []);
}

/**
 * The run's current details (the Web UI's run page, `temporal workflow metadata`): the step
 * against the agent's own limit and the phase, and what the run waits for, first:
 * "awaiting approval of get_weather (step-1.call-1) until 2026-05-01T10:00:00.000Z · step 1 of 10: tools".
 */
export function showDetails(state: LoopState, pending: readonly ApprovalRequest[]): void {
  const { config, step, stepLimit } = state;
  const stepBase = stepLimit - config.max_steps;
  const ofAgent = stepBase > 0 ? ` (${config.name}'s step ${step - stepBase} of ${config.max_steps})` : '';
  const phase = `step ${step} of ${stepLimit}${ofAgent}: ${state.phase}`;
  const waits = pending.map((request) => describeWait(request));
  const limitWait = state.providerLimitWait;
  if (limitWait)
    waits.push(`provider limit of ${limitWait.model}${limitWait.untilMs === null ? '' : ` until ${new Date(limitWait.untilMs).toISOString()}`}`);
  const slotWait = state.concurrencySlotWait;
  if (slotWait) waits.push(`a slot of ${slotWait.key} (at most ${slotWait.limit} runs at once)`);
  setDetails(state, waits.length > 0 ? `awaiting ${waits.join('; ')} · ${phase}` : phase);
}

/**
 * Sets the current details (no command: the Web UI reads them by query). An execution that
 * continues a run gets a first line naming its agent, task and why it is a new execution, since
 * it has no summary of its own.
 */
function setDetails(state: LoopState, details: string): void {
  const heading = continuationHeading(state.config.name, taskOf(state), state.carried);
  setCurrentDetails(heading ? `${heading}\n\n${details}` : details);
}

/** Ends the run with `reason`: status `completed` everywhere, and the run's result. */
export function finishRun(state: LoopState, reason: StopReason, output: string, extra: Partial<AgentRunResult> = {}): AgentRunResult {
  state.stopReason = reason;
  state.phase = 'completed';
  upsertSearchAttributes([{ key: AgentStatusAttribute, value: 'completed' }, ...costAttributes(state)]);
  state.events.push({ type: 'run-completed', stopReason: reason, output, usage: { ...state.usage } });
  setDetails(state, `completed: ${reason}`);
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
  const note = "\n[answer cut: the whole answer is in the run's history]";
  const keep = Math.max(0, rest.output.length - (jsonBytes(rest) - PAYLOAD_LIMIT_BYTES) - note.length - 1_000);
  return { ...rest, structuredOutput: undefined, output: `${rest.output.slice(0, keep)}${note}`, toolResults: [] };
}
