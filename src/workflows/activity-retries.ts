// How a run retries its model, compaction and tool calls: the one place that reads the retry patch.
import { ActivityFailure, ApplicationFailure, patched, sleep, workflowInfo, type RetryPolicy } from '@temporalio/workflow';
import type { AgentConfig } from '../config/agent-config';
import { ErrorCode } from '../protocol/errors';
import type { WorkflowRetriesInput } from '../protocol/run-types';
import { MODEL_BACKOFF, retryDecision, TOOL_BACKOFF, TOOL_TRY_LIMIT, tryActivityId, type Backoff, type RetryableFailureDetails } from '../protocol/workflow-retries';
import { UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH } from './patch-ids';
import type { RunState } from './run-state';
import { settle, takesLeanSteps } from './lean-steps';

/**
 * A run retries in one of two modes, chosen once per execution by the
 * `unbounded-infrastructure-retries` patch (src/workflows/patches.ts):
 * - since the patch, Temporal retries only a lost worker or a timeout, without limit, and the
 *   call's own failures (provider, tool) come back to the workflow, which retries them within the
 *   budget (src/protocol/workflow-retries.ts) with `.try-N` activity ids and durable timers;
 * - before it, Temporal retries everything up to the budget (`max_retries`, five tool attempts).
 * Call sites never branch on the mode: they describe one try with what {@link retriedCall} hands
 * them, so both sides of the patch issue exactly the commands they always did.
 */

/** The calls whose retries the patch changed (and an instructions provider's, which came after it). */
export type RetriedCall = 'model' | 'compaction' | 'tool' | 'mcp-tool' | 'instructions';

/** What an activity's input adds in the mode it is called in (nothing before the patch). */
export interface RetryModeInput {
  /** The executions before this try: the activity counts its attempts from it and fails to the workflow. */
  workflowRetries?: WorkflowRetriesInput;
  /** A tool call's key, the same for every try (`workflow id / first run id / activity id`). */
  idempotencyKey?: string;
}

/** One try of a call: its activity id, Temporal's retry policy for it, and what the input adds. */
export interface CallTry {
  activityId: string;
  retry: RetryPolicy;
  input: RetryModeInput;
}

/** Model failures that retrying cannot fix (Temporal's retry policy skips them, before the patch). */
const NON_RETRYABLE_MODEL_ERRORS = [
  ErrorCode.contextLengthExceeded,
  ErrorCode.modelAuthFailed,
  ErrorCode.modelBadRequest,
  ErrorCode.modelNotFound,
  ErrorCode.missingApiKey,
  ErrorCode.scriptedModelMismatch,
];

/** How each kind of call is retried on each side of the patch. */
interface CallRetryRules {
  /** Before the patch: Temporal retries everything with this policy. */
  temporalPolicy: (config: Pick<AgentConfig, 'max_retries'>) => RetryPolicy;
  /** Since the patch: the workflow's own tries, or null when the call's failures are results already (MCP). */
  workflowTries: { maxTries: (config: Pick<AgentConfig, 'max_retries'>) => number; backoff: Backoff; idempotencyKey: boolean } | null;
}

const TOOL_POLICY_BEFORE_PATCH: RetryPolicy = { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' };

const CALL_RETRY_RULES: Record<RetriedCall, CallRetryRules> = {
  model: {
    temporalPolicy: (config) => ({ maximumAttempts: config.max_retries, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS }),
    workflowTries: { maxTries: (config) => config.max_retries, backoff: MODEL_BACKOFF, idempotencyKey: false },
  },
  compaction: {
    temporalPolicy: (config) => ({ maximumAttempts: config.max_retries, nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS }),
    workflowTries: { maxTries: (config) => config.max_retries, backoff: MODEL_BACKOFF, idempotencyKey: false },
  },
  tool: {
    temporalPolicy: () => TOOL_POLICY_BEFORE_PATCH,
    workflowTries: { maxTries: () => TOOL_TRY_LIMIT, backoff: TOOL_BACKOFF, idempotencyKey: true },
  },
  'mcp-tool': { temporalPolicy: () => TOOL_POLICY_BEFORE_PATCH, workflowTries: null },
  // Added after the patch: a run before it never asks a provider, so its policy there is never used.
  instructions: {
    temporalPolicy: (config) => ({ maximumAttempts: config.max_retries }),
    workflowTries: { maxTries: (config) => config.max_retries, backoff: MODEL_BACKOFF, idempotencyKey: false },
  },
};

/** Whether this execution retries in the workflow (since the patch); read once, at its first retried call. */
function retriesInWorkflow(state: RunState): boolean {
  return (state.unboundedInfrastructureRetries ??= patched(UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH));
}

/**
 * Runs a `kind` call with the retries of this run's mode: `call` builds one try's activity from
 * the `CallTry` it gets (id, retry policy, input additions) and is called once per try. The first
 * try's command is issued in the caller's tick, like a plain activity call.
 *
 * @example
 * const reply = await retriedCall(state, 'model', 'step-3.model', (attempt) =>
 *   proxyActivities<AgentActivities>({ activityId: attempt.activityId, retry: attempt.retry, startToCloseTimeout: '1m' })
 *     .modelStep({ ...request, ...attempt.input }));
 */
export function retriedCall<T>(state: RunState, kind: RetriedCall, activityId: string, call: (attempt: CallTry) => Promise<T>): Promise<T> {
  const inWorkflow = retriesInWorkflow(state);
  const retry = callRetryPolicy(kind, state.config, inWorkflow);
  const tries = CALL_RETRY_RULES[kind].workflowTries;
  if (!inWorkflow || !tries) return call({ activityId, retry, input: {} });
  const idempotencyKey = tries.idempotencyKey ? { idempotencyKey: idempotencyKeyOf(activityId) } : {};
  const tryCall = (tryId: string, attemptsBefore: number) => call({ activityId: tryId, retry, input: { workflowRetries: { attemptsBefore }, ...idempotencyKey } });
  const maxTries = tries.maxTries(state.config);
  if (!takesLeanSteps(state)) return withWorkflowRetries(activityId, maxTries, tries.backoff, tryCall, 1, 0);
  // Lean: the first try's promise with one handler, the loop only after a failure. The handler
  // repeats the loop's decision for try 1 because entering the loop at once is what costs promises.
  return settle(() => tryCall(tryActivityId(activityId, 1), 0)).catch(async (error: unknown) => {
    const decision = retryDecision(retryDetailsOf(error), 1, maxTries, tries.backoff);
    if (!decision.retry) throw error;
    await sleep(decision.delayMs);
    return withWorkflowRetries(activityId, maxTries, tries.backoff, tryCall, 2, decision.attemptsBefore);
  });
}

/** Temporal's retry policy for a `kind` call, since the patch (`retriesInWorkflow`) or before it. */
export function callRetryPolicy(kind: RetriedCall, config: Pick<AgentConfig, 'max_retries'>, retriesInWorkflow: boolean): RetryPolicy {
  return retriesInWorkflow ? infrastructureRetryPolicy(30_000) : CALL_RETRY_RULES[kind].temporalPolicy(config);
}

/**
 * Temporal's retry policy where only a dead worker or a timeout reaches it: no attempt limit.
 * Used since the patch, and by every activity added after it (they have no side before it).
 */
export function infrastructureRetryPolicy(maximumIntervalMs: number): RetryPolicy {
  return { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: maximumIntervalMs };
}

/**
 * The key a tool call keeps across its tries, worker deaths and continue-as-new: the workflow id,
 * the chain's first run id (a workflow id can be reused by a later run) and the call's activity id.
 */
function idempotencyKeyOf(activityId: string): string {
  const info = workflowInfo();
  return `${info.workflowId}/${info.firstExecutionRunId}/${activityId}`;
}

/**
 * Calls `run` from try `firstTry` (`attemptsBefore` attempts made before it) until it succeeds,
 * fails for good, or `maxTries` tries failed retryably; waits the backoff (or the server's
 * retry-after) on a durable timer between tries.
 */
async function withWorkflowRetries<T>(
  activityId: string,
  maxTries: number,
  backoff: Backoff,
  run: (tryId: string, attemptsBefore: number) => Promise<T>,
  firstTry: number,
  attemptsSoFar: number,
): Promise<T> {
  let attemptsBefore = attemptsSoFar;
  for (let tryNumber = firstTry; ; tryNumber++) {
    try {
      return await run(tryActivityId(activityId, tryNumber), attemptsBefore);
    } catch (error) {
      const decision = retryDecision(retryDetailsOf(error), tryNumber, maxTries, backoff);
      if (!decision.retry) throw error;
      attemptsBefore = decision.attemptsBefore;
      await sleep(decision.delayMs);
    }
  }
}

/**
 * The tries a call had when it failed because its retries ran out, or null when it failed for
 * another reason (a failure retrying cannot fix, a cancellation). In either retry mode: since the
 * patch the last failure's details say it was retryable (the workflow stopped at its budget);
 * before it Temporal says the retry policy reached its maximum attempts (`maxTries`).
 */
export function exhaustedAttempts(error: unknown, maxTries: number): number | null {
  const details = retryDetailsOf(error);
  if (details) return details.retryable ? details.attempts : null;
  return error instanceof ActivityFailure && error.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? maxTries : null;
}

/** The retry details an activity attached to its failure, if the failure is one of ours. */
export function retryDetailsOf(error: unknown): RetryableFailureDetails | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    if (current instanceof ApplicationFailure) {
      const details = current.details?.[0] as Partial<RetryableFailureDetails> | undefined;
      return details && typeof details.retryable === 'boolean' && typeof details.attempts === 'number' ? (details as RetryableFailureDetails) : undefined;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
