// Tells an activity cancelled by its worker's shutdown from one whose run was cancelled or timed out.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';

/** The failure type of an activity its stopping worker cancelled; Temporal retries it on another worker. */
export const WORKER_SHUTDOWN_FAILURE = 'WorkerShutdown';

/**
 * Whether this activity was cancelled because its worker is shutting down and its grace time
 * (`shutdownGraceTime`) ran out. The SDK reports that as a cancellation like any other: the
 * cancellation signal aborts with a `CancelledFailure('WORKER_SHUTDOWN')` and the cancellation
 * details say `workerShutdown`.
 */
export function cancelledByWorkerShutdown(context: Context = Context.current()): boolean {
  if (!context.cancellationSignal.aborted) return false;
  if (context.cancellationDetails?.workerShutdown) return true;
  const reason: unknown = context.cancellationSignal.reason;
  return reason instanceof CancelledFailure && reason.message === 'WORKER_SHUTDOWN';
}

/**
 * Throws a retryable failure when the worker's shutdown cancelled this activity, so that whatever
 * the activity did with the abort (a tool that throws on `context.signal`, a provider call aborted
 * mid-request) is not recorded as the call's own failure: Temporal runs the activity again on
 * another worker (its retry policy has no attempt limit for lost workers). Call it first in a
 * `catch` that would otherwise turn an error into a result or a non-retryable failure.
 * @throws ApplicationFailure of type `WorkerShutdown`, retryable.
 */
export function rethrowIfWorkerShutdown(what: string): void {
  if (!cancelledByWorkerShutdown()) return;
  throw ApplicationFailure.retryable(
    `${what} was cancelled because its worker shut down before it finished; another worker runs it again`,
    WORKER_SHUTDOWN_FAILURE,
  );
}
