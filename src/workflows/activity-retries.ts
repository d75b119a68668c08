import { ApplicationFailure, patched, sleep, type RetryPolicy } from '@temporalio/workflow';
import { retryDecision, tryActivityId, type Backoff, type RetryableFailureDetails } from '../protocol/workflow-retries';
import type { RunState } from './run-state';

/**
 * Runs started since this patch retry lost workers and timeouts without limit, and the provider's
 * or tool's own failures in the workflow, within their budget (src/protocol/workflow-retries.ts).
 * Runs started before it keep Temporal retrying everything up to the budget.
 */
export const UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH = 'unbounded-infrastructure-retries';

/** Whether this run retries infrastructure failures without limit (decided once per execution). */
export function infrastructureRetriesUnbounded(state: RunState): boolean {
  return (state.unboundedInfrastructureRetries ??= patched(UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH));
}

/**
 * Temporal's retry policy under the patch: no attempt limit, because only a dead worker or a
 * timeout reaches it (the activity's own failures are non-retryable and come to the workflow).
 */
export function infrastructureRetryPolicy(maximumIntervalMs: number): RetryPolicy {
  return { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: maximumIntervalMs };
}

/** One try of a call: its activity id and the executions before it (for the activity's attempt count). */
export interface Try {
  activityId: string;
  attemptsBefore: number;
}

/**
 * Calls `run` until it succeeds, fails for good, or `maxTries` tries failed retryably; waits the
 * backoff (or the server's retry-after) on a durable timer between tries. The first try's command
 * is issued in the caller's tick, like a plain activity call.
 */
export async function withWorkflowRetries<T>(activityId: string, maxTries: number, backoff: Backoff, run: (attempt: Try) => Promise<T>): Promise<T> {
  let attemptsBefore = 0;
  for (let tryNumber = 1; ; tryNumber++) {
    try {
      return await run({ activityId: tryActivityId(activityId, tryNumber), attemptsBefore });
    } catch (error) {
      const decision = retryDecision(retryDetailsOf(error), tryNumber, maxTries, backoff);
      if (!decision.retry) throw error;
      attemptsBefore = decision.attemptsBefore;
      await sleep(decision.delayMs);
    }
  }
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
