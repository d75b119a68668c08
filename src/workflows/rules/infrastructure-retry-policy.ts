// Temporal's retry policy for activities whose own failures the workflow handles, pure: shared by the step loop and the limits workflows.
import type { RetryPolicy } from '@temporalio/workflow';

/** Temporal's retry policy where only a dead worker or a timeout reaches it: no attempt limit. */
export function infrastructureRetryPolicy(maximumIntervalMs: number): RetryPolicy {
  return { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: maximumIntervalMs };
}
