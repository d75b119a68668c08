// Reading a run's event log as it is now, page by page, and finding one event in it.
import type { WorkflowHandle } from '@temporalio/client';
import type { RunEvent } from '../protocol/run-events';
import { eventsQuery } from '../protocol/run-messages';

/** Where a scan of the event log starts and how many events each `events` query asks for. */
export interface EventScanOptions {
  /** The seq after which to read (default 0: the oldest event the log keeps). */
  after?: number;
  /** Events per `events` query (default 500). */
  pageSize?: number;
}

/**
 * The events a run (or thread) has logged after `options.after`, in order, read with the `events`
 * query a page at a time, ending at the last one logged so far: a look at the log as it is, not a
 * follow (for that, `RunHandle.events()`). Stop early by breaking out of the loop: no page after
 * the one in hand is read. Needs a worker to answer; adds nothing to the history.
 */
export async function* loggedEvents(workflow: WorkflowHandle, options: EventScanOptions = {}): AsyncGenerator<RunEvent> {
  for (let cursor = options.after ?? 0; ;) {
    const page = await workflow.query(eventsQuery, cursor, options.pageSize ?? 500);
    yield* page.events;
    if (page.events.length === 0 || page.finished) return;
    cursor = page.nextCursor;
  }
}

/**
 * The first event logged after `options.after` that `predicate` accepts, or null when none has
 * been logged so far (or the log no longer keeps it: it holds the newest events). Reads pages
 * only until the event is found.
 */
export async function findEvent<T extends RunEvent>(
  workflow: WorkflowHandle,
  predicate: (event: RunEvent) => event is T,
  options?: EventScanOptions,
): Promise<T | null>;
export async function findEvent(
  workflow: WorkflowHandle,
  predicate: (event: RunEvent) => boolean,
  options?: EventScanOptions,
): Promise<RunEvent | null>;
export async function findEvent(
  workflow: WorkflowHandle,
  predicate: (event: RunEvent) => boolean,
  options: EventScanOptions = {},
): Promise<RunEvent | null> {
  for await (const event of loggedEvents(workflow, options)) if (predicate(event)) return event;
  return null;
}
