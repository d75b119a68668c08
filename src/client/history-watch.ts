// Waiting for a workflow's history to grow: Temporal's long poll on GetWorkflowExecutionHistory, following continue-as-new.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;

/** What one page of new history events changed, as a feed needs it. */
export interface HistoryGrowth {
  /** The execution the events belong to. */
  runId: string;
  /** Activities scheduled and not yet closed after these events (their heartbeats carry live text and progress). */
  pendingActivities: number;
  /** The execution closed with these events; `continuedAs` names the run it continued as, if it did. */
  closed: boolean;
  continuedAs: string | null;
}

/** How long one long poll may stay open before it is asked again (the server answers empty after ~20 s). */
const LONG_POLL_DEADLINE_MS = 70_000;

/**
 * Yields after every page of history events the workflow adds, from `runId` (default: its latest
 * execution) on, across continue-as-new, until the chain of executions closes or `signal` aborts.
 * Each wait is one long-poll request (`waitNewEvent`), answered as soon as the history grows or
 * after the server's long-poll interval: an idle workflow costs about 3 requests a minute, and
 * nothing is added to its history. The first pages read what is already there.
 */
export async function* watchHistory(
  client: Client,
  namespace: string,
  workflowId: string,
  options: { runId?: string; signal: AbortSignal; onRequest?: () => void },
): AsyncGenerator<HistoryGrowth> {
  let runId = options.runId ?? '';
  while (!options.signal.aborted) {
    const pending = new Map<string, true>();
    let token: Uint8Array | undefined;
    let currentRunId = runId;
    let continuedAs: string | null = null;
    for (;;) {
      options.onRequest?.();
      const response = await withRequestSignal(options.signal, (signal) =>
        client.withAbortSignal(signal, () =>
          client.withDeadline(Date.now() + LONG_POLL_DEADLINE_MS, () =>
            client.workflowService.getWorkflowExecutionHistory({
              namespace,
              execution: { workflowId, runId: currentRunId },
              nextPageToken: token,
              waitNewEvent: true,
              maximumPageSize: 500,
            }),
          ),
        ),
      );
      const events = response.history?.events ?? [];
      let closed = false;
      for (const event of events) {
        const id = String(event.eventId ?? '');
        if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) pending.set(id, true);
        const scheduled = activityClosedFor(event);
        if (scheduled !== null) pending.delete(scheduled);
        if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED && currentRunId === '')
          currentRunId = event.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? '';
        if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW)
          continuedAs = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? null;
        closed ||= isCloseEvent(event.eventType);
      }
      const ended = !response.nextPageToken?.length;
      if (events.length > 0 || ended)
        yield { runId: currentRunId, pendingActivities: pending.size, closed: closed || ended, continuedAs: ended ? continuedAs : null };
      if (ended) break;
      token = response.nextPageToken ?? undefined;
    }
    if (continuedAs === null) return;
    runId = continuedAs;
  }
}

/**
 * Runs one request under a signal of its own that follows `signal`: the client adds an abort
 * listener per request and never removes it, so a follower of hours would pile them up on `signal`.
 */
async function withRequestSignal<T>(signal: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort();
  if (signal.aborted) own.abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await request(own.signal);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/** The scheduled event id of the activity an event closes, or null for any other event. */
function activityClosedFor(event: temporal.api.history.v1.IHistoryEvent): string | null {
  const attributes =
    event.activityTaskCompletedEventAttributes ??
    event.activityTaskFailedEventAttributes ??
    event.activityTaskTimedOutEventAttributes ??
    event.activityTaskCanceledEventAttributes;
  return attributes?.scheduledEventId != null ? String(attributes.scheduledEventId) : null;
}

const CLOSE_EVENTS = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

function isCloseEvent(type: temporal.api.enums.v1.EventType | null | undefined): boolean {
  return type != null && CLOSE_EVENTS.has(type);
}
