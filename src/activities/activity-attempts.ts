import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WorkflowRetriesInput } from '../protocol/run-types';
import type { RetryableFailureDetails } from '../protocol/workflow-retries';

/**
 * Attempts and failures of activities whose run retries their own failures itself
 * (src/protocol/workflow-retries.ts): Temporal then only retries lost workers and timeouts.
 */

/** This execution's attempt at the call: 1 on the first, counting the workflow's tries and Temporal's retries. */
export function attemptNumber(workflowRetries: WorkflowRetriesInput | undefined): number {
  return (workflowRetries?.attemptsBefore ?? 0) + Context.current().info.attempt;
}

/** The provider's or tool's own failure, for the workflow to retry within its budget (never Temporal). */
export function failureForWorkflow(type: string, message: string, details: RetryableFailureDetails): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: [details] });
}
