// The runLifecycleHooks activity: hooks of the workflow's own moments (run and turn end, approval decided, handoff, run failure).
import { Context } from '@temporalio/activity';
import type { HookEvents } from '../hooks/hook-events';
import type { HookRunner } from '../hooks/hook-runner';
import type { HookFailureReport, LifecycleEvent, LifecycleHooksInput, LifecycleHooksResult } from '../protocol/hook-types';
import { LiveHeartbeat } from './heartbeat';
import { hookEventBase, hookRunContext, logHookFailures, whileHeartbeating } from './hook-support';

export interface LifecycleHookDependencies {
  hooks?: HookRunner;
}

/**
 * Runs the hooks of moments only the workflow sees, in the order given. The workflow schedules it
 * only for points a model step said this worker's fleet has hooks at, so runs without hooks never
 * pay for it. Hook failures come back as results (never as the activity's failure, which would
 * retry hooks that throw): the workflow applies the agent's `hook_errors` to them. Error hooks'
 * own failures are only logged.
 */
export function createLifecycleHooks(dependencies: LifecycleHookDependencies) {
  return async function runLifecycleHooks(input: LifecycleHooksInput): Promise<LifecycleHooksResult> {
    const runner = dependencies.hooks;
    const failures: HookFailureReport[] = [];
    if (!runner) return { failures };
    const base = { ...hookEventBase(input.context, Context.current().info.attempt), step: input.step };
    // Every hook runs and is reported: the workflow decides what a failure does.
    const live = new LiveHeartbeat();
    const context = hookRunContext({ ...input.context, onError: 'ignore' as const }, live);
    for (const event of input.events) {
      const outcome = await whileHeartbeating(() => observe(runner, context, base, event), live);
      if (event.point === 'error') logHookFailures(outcome.ignored, 'ignored');
      else failures.push(...outcome.ignored);
    }
    logHookFailures(failures, input.context.onError === 'fail' ? 'failed' : 'ignored');
    return { failures };
  };
}

type EventBase = ReturnType<typeof hookEventBase> & { step: number };

/** A lifecycle event's hooks: each event's facts are its point's hook event, less the base every event shares. */
function observe(runner: HookRunner, context: LifecycleHooksInput['context'], base: EventBase, event: LifecycleEvent) {
  const { point, ...facts } = event;
  // The union of events and the union of points cannot be paired up by the compiler; `LifecycleEvent` mirrors `HookEvents`.
  return runner.observe(point, context, { ...base, ...facts } as HookEvents[typeof point]);
}
