// Attempts and failures of the activities whose own failures the workflow retries (src/workflows/loop/activity-retries.ts).
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WorkflowRetriesInput } from '../protocol/run-types';
import type { RetryableFailureDetails } from '../protocol/workflow-retries';

/**
 * A model, compaction, tool or instructions activity is one try of the workflow's: Temporal
 * retries it only after a lost worker or a timeout, and the call's own failures go back to the
 * workflow, which decides on another try. `workflowRetries` (set by the workflow on every try)
 * says how many executions came before this try; absent, none did (an activity called directly).
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
 * The call's own failure: non-retryable for Temporal, with `RetryableFailureDetails` (whether
 * another try may succeed, the attempts so far, the server's retry-after) for the workflow to
 * decide on.
 */
export function callFailure(
  workflowRetries: WorkflowRetriesInput | undefined,
  { type, message, retryable, retryAfterMs }: CallFailure,
): ApplicationFailure {
  const details: RetryableFailureDetails = {
    retryable,
    attempts: attemptNumber(workflowRetries),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: [details] });
}
