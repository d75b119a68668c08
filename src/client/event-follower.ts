// A run's (or thread's) events as they are logged, read when its history grows instead of on a timer.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { RunEvent } from '../protocol/run-events';
import { eventsQuery } from '../protocol/run-messages';
import { watchHistory, type HistoryGrowth } from './history-watch';

/**
 * Yields the workflow's events after `cursor`, in order, and ends once the run has ended and every
 * event was read (or when `signal` aborts). It reads what is there with the `events` query, then
 * waits for the history to grow (`watchHistory`, a long poll) and reads again: one query per change,
 * and an idle run costs one long poll about every 20 s rather than queries several times a second.
 * Events are logged only by a workflow task, which always adds to the history, so no change is missed.
 */
export async function* followEvents(
  temporal: Client,
  workflow: WorkflowHandle,
  options: { cursor?: number; signal?: AbortSignal } = {},
): AsyncGenerator<RunEvent> {
  let cursor = options.cursor ?? 0;
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // Started on the first wait, so a run that has nothing more to say costs no history read.
  let growth: AsyncGenerator<HistoryGrowth> | null = null;
  let closed = false;
  try {
    while (!signal.aborted) {
      for (;;) {
        const page = await workflow.query(eventsQuery, cursor, 200);
        for (const event of page.events) yield event;
        cursor = page.nextCursor;
        if (page.finished) return;
        if (page.events.length === 0) break;
      }
      // One read after the close was seen drains what the run logged before it ended.
      if (closed) return;
      growth ??= watchHistory(temporal, temporal.options.namespace, workflow.workflowId, { signal });
      closed = await closedAfterGrowth(growth, signal);
    }
  } finally {
    stop.abort();
  }
}

/** Waits for the next growth of the history; true when the chain of executions has closed (or the wait was aborted). */
async function closedAfterGrowth(growth: AsyncGenerator<HistoryGrowth>, signal: AbortSignal): Promise<boolean> {
  try {
    const next = await growth.next();
    return next.done === true || (next.value.closed && next.value.continuedAs === null);
  } catch (error) {
    if (signal.aborted) return true;
    throw error;
  }
}
