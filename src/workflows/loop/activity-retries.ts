// How a run retries its model, compaction, tool and instructions calls: the workflow's tries over Temporal's retries of lost workers.
import { ApplicationFailure, sleep, workflowInfo, type RetryPolicy } from '@temporalio/workflow';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import type { AgentConfig } from '../../config/agent-config';
import type { WorkflowRetriesInput } from '../../protocol/run-types';
import {
  MODEL_BACKOFF,
  retryDecision,
  TOOL_BACKOFF,
  TOOL_TRY_LIMIT,
  tryActivityId,
  type Backoff,
  type RetryableFailureDetails,
} from '../../protocol/workflow-retries';
import type { LoopState } from './loop-state';
import { settle } from './settle';

/**
 * How a run retries its model, compaction, tool and instructions calls: Temporal retries only a
 * lost worker or a timeout, without limit (`infrastructureRetryPolicy`), and the call's own
 * failures (provider, tool) come back to the workflow, which retries them within the budget
 * (src/protocol/workflow-retries.ts) with `.try-N` activity ids and durable timers. An MCP call's
 * failures are results already, so only Temporal's policy applies to it.
 */

/** The calls whose own failures the workflow retries (`mcp-tool`: only lost workers and timeouts). */
export type RetriedCall = 'model' | 'compaction' | 'tool' | 'mcp-tool' | 'instructions';

/** What a try adds to its activity's input. */
export interface TryInput {
  /** The executions before this try: the activity counts its attempts from it and fails to the workflow. */
  workflowRetries?: WorkflowRetriesInput;
  /** A tool call's key, the same for every try (`workflow id / first run id / activity id`). */
  idempotencyKey?: string;
}

/** One try of a call: its activity id, Temporal's retry policy for it, and what the input adds. */
export interface CallTry {
  activityId: string;
  retry: RetryPolicy;
  input: TryInput;
}

/** The workflow's own tries of each kind of call, or null when the call's failures are results already (MCP). */
const WORKFLOW_TRIES: Record<
  RetriedCall,
  { maxTries: (config: Pick<AgentConfig, 'max_retries'>) => number; backoff: Backoff; idempotencyKey: boolean } | null
> = {
  model: { maxTries: (config) => config.max_retries, backoff: MODEL_BACKOFF, idempotencyKey: false },
  compaction: { maxTries: (config) => config.max_retries, backoff: MODEL_BACKOFF, idempotencyKey: false },
  tool: { maxTries: () => TOOL_TRY_LIMIT, backoff: TOOL_BACKOFF, idempotencyKey: true },
  'mcp-tool': null,
  instructions: { maxTries: (config) => config.max_retries, backoff: MODEL_BACKOFF, idempotencyKey: false },
};

/** Temporal's retry policy of every retried call: a lost worker or a timeout, retried without limit. */
export const CALL_RETRY_POLICY: RetryPolicy = infrastructureRetryPolicy(30_000);

/**
 * Runs a `kind` call with the workflow's tries: `call` builds one try's activity from the
 * `CallTry` it gets (id, retry policy, input additions) and is called once per try. The first
 * try's command is issued in the caller's tick, like a plain activity call, with one failure
 * handler; the retry loop starts only after a failure (entering it at once costs promises).
 *
 * @example
 * const reply = await retriedCall(state, 'model', 'step-3.model', (attempt) =>
 *   proxyActivities<AgentActivities>({ activityId: attempt.activityId, retry: attempt.retry, startToCloseTimeout: '1m' })
 *     .modelStep({ ...request, ...attempt.input }));
 */
export function retriedCall<T>(state: LoopState, kind: RetriedCall, activityId: string, call: (attempt: CallTry) => Promise<T>): Promise<T> {
  const tries = WORKFLOW_TRIES[kind];
  if (!tries) return call({ activityId, retry: CALL_RETRY_POLICY, input: {} });
  const idempotencyKey = tries.idempotencyKey ? { idempotencyKey: idempotencyKeyOf(activityId) } : {};
  const tryCall = (tryId: string, attemptsBefore: number) =>
    call({ activityId: tryId, retry: CALL_RETRY_POLICY, input: { workflowRetries: { attemptsBefore }, ...idempotencyKey } });
  const maxTries = tries.maxTries(state.config);
  // The handler repeats the loop's decision for try 1 so that a call that succeeds never enters the loop.
  return settle(() => tryCall(tryActivityId(activityId, 1), 0)).catch(async (error: unknown) => {
    const decision = retryDecision(retryDetailsOf(error), 1, maxTries, tries.backoff);
    if (!decision.retry) throw error;
    await sleep(decision.delayMs);
    return withWorkflowRetries(activityId, maxTries, tries.backoff, tryCall, 2, decision.attemptsBefore);
  });
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
 * The tries a call had when it failed because its retries ran out (the last failure's details say
 * it was retryable: the workflow stopped at its budget), or null when it failed for another reason
 * (a failure retrying cannot fix, a cancellation).
 */
export function exhaustedAttempts(error: unknown): number | null {
  const details = retryDetailsOf(error);
  return details?.retryable ? details.attempts : null;
}

/** The retry details an activity attached to its failure, if the failure is one of ours. */
export function retryDetailsOf(error: unknown): RetryableFailureDetails | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    if (current instanceof ApplicationFailure) {
      const details = current.details?.[0] as Partial<RetryableFailureDetails> | undefined;
      return details && typeof details.retryable === 'boolean' && typeof details.attempts === 'number'
        ? (details as RetryableFailureDetails)
        : undefined;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
