// Attempts and failures of retried activities, in the retry mode their run chose (src/workflows/activity-retries.ts).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WorkflowRetriesInput } from '../protocol/run-types';
import type { RetryableFailureDetails } from '../protocol/workflow-retries';

/**
 * The input of a model, compaction or tool activity says its run's retry mode: `workflowRetries`
 * is set in runs since the `unbounded-infrastructure-retries` patch, where the workflow retries the
 * call's own failures and Temporal only lost workers and timeouts; unset in runs before it, where
 * Temporal retries everything. These two functions are the only places an activity tells them apart.
 */

/** This execution's attempt at the call: 1 on the first, counting the workflow's tries and Temporal's retries. */
export function attemptNumber(workflowRetries: WorkflowRetriesInput | undefined): number {
  return (workflowRetries?.attemptsBefore ?? 0) + Context.current().info.attempt;
}

/** A failure of the call itself (the provider's, the tool's), to be thrown by the activity. */
export interface CallFailure {
  /** The failure's type: a stable code such as `ModelRateLimited` or `RetryableToolError`. */
  type: string;
  message: string;
  /** Whether another try may succeed. */
  retryable: boolean;
  /** The server's retry-after, when it sent one. */
  retryAfterMs?: number;
}

/**
 * The call's own failure in its run's retry mode: non-retryable for Temporal with
 * `RetryableFailureDetails` for the workflow to decide on (since the patch), or retryable by
 * Temporal's policy as `retryable` says (runs before it).
 */
export function callFailure(workflowRetries: WorkflowRetriesInput | undefined, { type, message, retryable, retryAfterMs }: CallFailure): ApplicationFailure {
  if (workflowRetries) {
    const details: RetryableFailureDetails = { retryable, attempts: attemptNumber(workflowRetries), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    return ApplicationFailure.create({ type, message, nonRetryable: true, details: [details] });
  }
  return ApplicationFailure.create({ type, message, nonRetryable: !retryable, nextRetryDelay: retryAfterMs });
}
