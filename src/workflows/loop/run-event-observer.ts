// Who else hears of each run event as the workflow logs it: the tracing interceptor a tracing worker adds (src/telemetry) turns events into span attributes and metrics.
import type { RunEvent } from '../../protocol/run-events';

/** Told of every event the run logs, in order, on replay too (so it must be deterministic and send only through sinks). */
export type RunEventObserver = (event: RunEvent) => void;

/**
 * On the workflow's global object, not in a module variable: the agent workflow modules are
 * preloaded and frozen, shared by every workflow of a worker thread, while each workflow gets a
 * global object of its own. Without a tracing interceptor nothing is set and nothing is called.
 */
const OBSERVER_KEY = Symbol.for('durable-agents.run-event-observer');

/** Sets (or with `undefined` clears) the observer of this workflow's run events. */
export function observeRunEvents(observer: RunEventObserver | undefined): void {
  (globalThis as Record<symbol, RunEventObserver | undefined>)[OBSERVER_KEY] = observer;
}

/** Tells the observer, when there is one, of an event just logged. It issues no command: no patch, histories replay as they are. */
export function notifyRunEventObserver(event: RunEvent): void {
  (globalThis as Record<symbol, RunEventObserver | undefined>)[OBSERVER_KEY]?.(event);
}
