// Whether an execution takes its steps the lean way (fewer promises per step), decided once per execution by the `lean-steps` patch.
import { patched } from '@temporalio/workflow';
import { LEAN_STEPS_PATCH } from './patch-ids';
import type { RunState } from './run-state';

/**
 * Whether this execution takes its steps the lean way: decided at its first step or model call and
 * kept for the execution (a continued execution decides afresh).
 *
 * Why it exists: the Temporal SDK takes a stack trace, mapped through the bundle's source map, of
 * every promise workflow code makes (for its stack trace query), and V8 resolves every promise on
 * its slow path while that hook is installed. An agent step made about four times a bare
 * activity's promises, one per `async` helper it passed through and one per `await` of it, most of
 * them in helpers with nothing to do (no continue-as-new due, no skill to reload, no provider
 * limit). The lean way returns from those helpers at once and chains the rest with one `.then`
 * where it awaited twice (docs/performance.md, "Where an agent run's workflow CPU goes").
 *
 * It issues the same commands with the same inputs, but its coroutines take fewer microtask turns,
 * which can change the order in which two of them that wake in one activation issue their
 * commands (two tool calls whose retries fail together, a tool call beside a signal handler). So
 * histories recorded before it replay the old way: without the marker, this returns false.
 */
export function takesLeanSteps(state: RunState): boolean {
  return (state.leanSteps ??= patched(LEAN_STEPS_PATCH));
}

/**
 * `start()`'s promise, or a rejected one if it throws before making it: a lean call that throws
 * synchronously (a payload the SDK cannot convert) fails the way the `async` helper it replaced did.
 */
export function settle<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}
