// What the activities that run hooks share: the event base, the HookFailed failure, and reporting failures in the worker's log.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ErrorCode } from '../protocol/errors';
import type { HookContext, HookFailureReport } from '../protocol/hook-types';
import type { HookEventBase } from '../hooks/hook-events';
import type { HookRunContext } from '../hooks/hook-runner';
import { describeHookFailure } from '../protocol/hook-types';
import { LiveHeartbeat, withHeartbeat } from './heartbeat';
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
 * Runs hooks while the activity heartbeats (through `live`, when the activity keeps state in its
 * details): a hook that takes longer than the activity's heartbeat timeout (waiting on a policy
 * service, say) must not look like a dead worker.
 */
export function whileHeartbeating<T>(hooks: () => Promise<T>, live?: LiveHeartbeat): Promise<T> {
  return withHeartbeat(hooks, live);
}

/**
 * The context hooks run in inside this activity: each hook running is shown in the heartbeat
 * details (`runningHook`, what `status` reports the run waits for), and no hook may run past a
 * tenth (at least a second) before the activity's start-to-close timeout, so the activity returns
 * (with the hook's failure) instead of timing out and being tried again.
 */
export function hookRunContext<C extends HookContext>(context: C, live: LiveHeartbeat): C & HookRunContext {
  const info = Context.current().info;
  const timeoutMs = info.startToCloseTimeoutMs;
  const deadlineMs = timeoutMs ? info.currentAttemptScheduledTimestampMs + timeoutMs - Math.max(1_000, timeoutMs / 10) : undefined;
  return {
    ...context,
    watch: (running) => live.keep('runningHook', running ?? undefined),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
  };
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
