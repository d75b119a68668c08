// Hooks from the workflow's side: what activities are told, what workers said they have, and the lifecycle-hooks activity.
import { ApplicationFailure, isCancellation, proxyActivities, TemporalFailure, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import type { ToolDecision } from '../protocol/call-deciders';
import { ErrorCode } from '../protocol/errors';
import {
  describeHookFailure,
  type EndFacts,
  type HookContext,
  type HookFailureReport,
  type HookOpening,
  type HookPoint,
  type LifecycleEvent,
  type ModelStepHooks,
} from '../protocol/hook-types';
import type { ToolCall } from '../protocol/messages';
import type { ApprovalRecord, ModelStepResult } from '../protocol/run-types';
import { infrastructureRetryPolicy } from './activity-retries';
import { activitySummary } from './activity-summary';
import { describeFailure, failureType } from './describe-failure';
import type { RunState } from './run-state';
import type { StepsEnd } from './run-steps';
import { applyToolDecision, type DecidedCall } from './tool-decisions';

/**
 * What a run knows of its workers' hooks (docs/hooks.md). The workflow cannot ask the workers
 * without a round trip, so it learns from the model steps it runs anyway: the first model call of
 * each execution (and of each thread turn) names the agent, and a worker with hooks for it answers
 * with their points in the step's result, which the history records (so a replay learns the same).
 * Until a step said so, the run issues no hook activity and only the first model call of an
 * execution (or turn) carries the agent's name: runs without hooks keep their commands and events.
 */
export interface RunHooks {
  /** The points the workers said they have hooks at for this agent (sticky within the execution). */
  points: HookPoint[];
  /** The start to announce in the next model call (a fresh run, a new turn). */
  opening: HookOpening | null;
  /** Whether a model call of this execution named the agent yet. */
  announced: boolean;
  /** The latest model step's before-tool decisions, by call id. */
  decisions: Record<string, ToolDecision>;
  /** Whether the run-end hooks were called (a failure after them does not call them again). */
  ended?: boolean;
}

/** How much of a run's answer the end hooks get (the whole answer is in the history). */
const END_OUTPUT_CHARACTERS = 64_000;

/** A fresh run announces its start; a continued execution (or a thread, whose turns do) does not. */
export function initialRunHooks(opensRun: boolean): RunHooks {
  return { points: [], opening: opensRun ? { kind: 'run' } : null, announced: false, decisions: {} };
}

/** The run's hook context: its agent, the agent's `hook_errors`, its resource and thread. */
export function hookContext(state: RunState): HookContext {
  return {
    agent: state.config.name,
    onError: state.config.hook_errors,
    ...(state.input.resourceId !== undefined ? { resourceId: state.input.resourceId } : {}),
    ...(state.continueAs ? { threadId: workflowInfo().workflowId } : {}),
  };
}

/**
 * What the next model call's input carries for hooks: the context on the execution's first call,
 * on a turn's first call (with its opening), and on every call once a worker said it has hooks;
 * nothing otherwise.
 */
export function modelStepHooks(state: RunState): ModelStepHooks | undefined {
  const hooks = state.hooks;
  const opening = hooks.opening;
  if (hooks.announced && !opening && hooks.points.length === 0) return undefined;
  hooks.announced = true;
  hooks.opening = null;
  return { ...hookContext(state), ...(opening ? { opening } : {}) };
}

/** Takes in what a model step said about hooks: their points, its before-tool decisions, hooks it ignored. */
export function noteModelStepHooks(state: RunState, reply: ModelStepResult): void {
  const report = reply.hooks;
  state.hooks.decisions = report?.toolDecisions ?? {};
  if (!report) return;
  for (const point of report.points) if (!state.hooks.points.includes(point)) state.hooks.points.push(point);
  reportHookFailures(state, report.failures ?? [], 'ignored');
}

/**
 * The before-tool decision on `call` that the model step recorded, applied: null when no hook
 * decided anything about it. A call a hook
 * failed is reported (`hook-failed`, outcome `failed`).
 */
export function decideToolCall(state: RunState, call: ToolCall): DecidedCall | null {
  const decision = state.hooks.decisions[call.id];
  if (!decision) return null;
  if (decision.action === 'fail')
    reportHookFailures(state, [{ hook: decision.hook, point: 'before-tool', message: decision.reason ?? '' }], 'failed');
  return applyToolDecision(call, decision, state.step, state.injectedArgNames, Date.now());
}

/** The context a tool activity gets when the workers have after-tool or error hooks (nothing otherwise). */
export function toolCallHooks(state: RunState): { hooks?: HookContext } {
  return state.hooks.points.includes('after-tool') || state.hooks.points.includes('error') ? { hooks: hookContext(state) } : {};
}

/** The approval-decided hooks of a gated call (its failure, when it fails the call, or null). */
export function approvalDecidedHooks(
  state: RunState,
  call: ToolCall,
  approval: ApprovalRecord,
  activityId: string,
): Promise<HookFailureReport | null> {
  return callLifecycleHooks(state, activityId, [
    {
      point: 'approval-decided',
      approvalId: approval.approvalId,
      call,
      outcome: approval.outcome ?? 'timed_out',
      decidedBy: approval.decidedBy,
      reason: approval.reason,
      ...(approval.requiredBy ? { requiredBy: approval.requiredBy } : {}),
    },
  ]);
}

/** How a run (turn) ended, as the end hooks get it: the output cut to what an activity input may carry. */
function endFacts(state: RunState, stopReason: string, output: string, failure?: EndFacts['failure']): EndFacts {
  const cut = output.length > END_OUTPUT_CHARACTERS;
  return {
    stopReason,
    output: cut ? output.slice(0, END_OUTPUT_CHARACTERS) : output,
    ...(cut ? { outputTruncated: true as const } : {}),
    steps: state.step,
    usage: { inputTokens: state.usage.inputTokens, outputTokens: state.usage.outputTokens },
    ...(failure ? { failure } : {}),
  };
}

/** The run-end hooks of a run that ended (not failed); one that fails under `hook_errors: fail` fails the run (`HookFailed`). */
export async function runEndHooks(state: RunState, end: StepsEnd): Promise<void> {
  state.hooks.ended = true;
  const failure = await callLifecycleHooks(state, `step-${state.step}.end-hooks`, [{ point: 'run-end', ...endFacts(state, end.reason, end.output) }]);
  if (failure) throw ApplicationFailure.nonRetryable(describeHookFailure(failure), ErrorCode.hookFailed, failure);
}

/** The error hooks, then the run-end hooks (unless they ran already), of a run that fails with `error` (not of a cancelled or continued one). */
export async function runFailureHooks(state: RunState, error: unknown): Promise<void> {
  if (!(error instanceof TemporalFailure) || isCancellation(error)) return;
  const failure = { type: failureType(error) ?? null, message: describeFailure(error) };
  const events: LifecycleEvent[] = [{ point: 'error', where: 'run', errorType: failure.type, message: failure.message }];
  if (!state.hooks.ended) events.push({ point: 'run-end', ...endFacts(state, 'failed', state.threads.lastAssistantText(), failure) });
  await callFailureHooks(state, `step-${state.step}.failure-hooks`, events);
}

/**
 * The turn-end hooks (and the error hooks of a failed turn). A turn-end hook that fails under
 * `hook_errors: fail` makes the turn end failed (`HookFailed`); the thread goes on.
 */
export async function turnEndHooks<End extends StepsEnd & { failure?: { type: string | null; message: string } }>(
  state: RunState,
  turn: number,
  end: End,
): Promise<End> {
  const facts = endFacts(state, end.failure ? 'failed' : end.reason, end.output, end.failure);
  if (end.failure) {
    await callFailureHooks(state, `turn-${turn}.failure-hooks`, [
      { point: 'error', where: 'turn', errorType: end.failure.type, message: end.failure.message },
      { point: 'turn-end', turn, ...facts },
    ]);
    return end;
  }
  const failure = await callLifecycleHooks(state, `turn-${turn}.end-hooks`, [{ point: 'turn-end', turn, ...facts }]);
  return failure ? { ...end, failure: { type: ErrorCode.hookFailed, message: describeHookFailure(failure) } } : end;
}

/** The handoff hooks, before the run hands over to `target`; one that fails under `hook_errors: fail` fails the run (`HookFailed`). */
export async function handoffHooks(state: RunState, target: string): Promise<void> {
  const failure = await callLifecycleHooks(state, `step-${state.step}.handoff-hooks`, [{ point: 'handoff', from: state.config.name, to: target }]);
  if (failure) throw ApplicationFailure.nonRetryable(describeHookFailure(failure), ErrorCode.hookFailed, failure);
}

/** `hook-failed` events, one per failure. */
export function reportHookFailures(state: RunState, failures: readonly HookFailureReport[], outcome: 'failed' | 'ignored'): void {
  for (const failure of failures) state.events.push({ type: 'hook-failed', step: state.step, ...failure, outcome });
}

/**
 * Runs the hooks of `events` that the workers have (a `runLifecycleHooks` activity; none when they
 * have none of these points). Returns the first failure when it fails the call (`hook_errors:
 * fail`; error hooks never do), else null. A lost worker or a timeout is retried; a hook that
 * throws is a result, never retried.
 */
export async function callLifecycleHooks(state: RunState, activityId: string, events: LifecycleEvent[]): Promise<HookFailureReport | null> {
  const failures = await runLifecycleActivity(state, activityId, events);
  const failing = state.config.hook_errors === 'fail' ? failures.filter((failure) => failure.point !== 'error') : [];
  reportHookFailures(state, failing, 'failed');
  reportHookFailures(
    state,
    failures.filter((failure) => !failing.includes(failure)),
    'ignored',
  );
  return failing[0] ?? null;
}

/**
 * The error and end hooks of a run or turn that failed: their own failures change nothing (it
 * fails anyway), and not reaching them is only reported, so the run's own failure is what it ends with.
 */
export async function callFailureHooks(state: RunState, activityId: string, events: LifecycleEvent[]): Promise<void> {
  try {
    reportHookFailures(state, await runLifecycleActivity(state, activityId, events), 'ignored');
  } catch (error) {
    if (isCancellation(error)) throw error;
    reportHookFailures(state, [{ hook: '(lifecycle hooks)', point: 'error', message: describeFailure(error) }], 'ignored');
  }
}

/** The lifecycle-hooks activity for the events whose points the workers have hooks at (no activity when none). */
async function runLifecycleActivity(state: RunState, activityId: string, events: LifecycleEvent[]): Promise<HookFailureReport[]> {
  const wanted = events.filter((event) => state.hooks.points.includes(event.point));
  if (wanted.length === 0) return [];
  const { runLifecycleHooks } = proxyActivities<AgentActivities>({
    activityId,
    summary: activitySummary(activityId, `hooks: ${wanted.map((event) => event.point).join(', ')}`),
    startToCloseTimeout: state.timeouts.toolMs,
    heartbeatTimeout: state.timeouts.heartbeatMs,
    retry: infrastructureRetryPolicy(30_000),
  });
  return (await runLifecycleHooks({ context: hookContext(state), step: state.step, events: wanted })).failures;
}
