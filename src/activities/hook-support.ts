// What the activities that run hooks share: the event base, the HookFailed failure, and reporting failures in the worker's log.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ErrorCode } from '../protocol/errors';
import type { HookContext, HookFailureReport } from '../protocol/hook-types';
import type { HookEventBase } from '../hooks/hook-events';
import { describeHookFailure } from '../protocol/hook-types';
import { withHeartbeat } from './heartbeat';
import { currentRunExecution } from './run-execution';

/** What every hook event starts with, for the activity running now. */
export function hookEventBase(context: HookContext, attempt: number): HookEventBase {
  const { workflowId, runId } = currentRunExecution();
  return {
    agent: context.agent,
    workflowId,
    runId,
    ...(context.resourceId !== undefined ? { resourceId: context.resourceId } : {}),
    ...(context.threadId !== undefined ? { threadId: context.threadId } : {}),
    attempt,
  };
}

/**
 * The failure of a call a hook failed (`hook_errors: fail`): type `HookFailed`, never retried (the
 * same hook would decide the same), its message naming the hook and its point.
 */
export function hookFailedFailure(report: HookFailureReport): ApplicationFailure {
  return ApplicationFailure.create({ type: ErrorCode.hookFailed, message: describeHookFailure(report), nonRetryable: true, details: [report] });
}

/**
 * Runs hooks while the activity heartbeats: a hook that takes longer than the activity's heartbeat
 * timeout (waiting on a policy service, say) must not look like a dead worker.
 */
export function whileHeartbeating<T>(hooks: () => Promise<T>): Promise<T> {
  return withHeartbeat(hooks);
}

/** Each failure in the worker's log, with the hook's name and point and what it failed (or that it was ignored). */
export function logHookFailures(failures: readonly HookFailureReport[], outcome: 'failed' | 'ignored'): void {
  for (const failure of failures) {
    Context.current().log.warn(`${describeHookFailure(failure)} (${outcome === 'failed' ? 'the call fails' : 'ignored'})`, {
      hook: failure.hook,
      point: failure.point,
      outcome,
    });
  }
}
