// The library's followers as they were before they waited on the history (the baseline of the `follow-requests` section).
import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isModelTextSnapshot } from '../src/protocol/live-snapshots';
import type { RunEvent } from '../src/protocol/run-events';
import { eventsQuery } from '../src/protocol/run-messages';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The old `RunHandle.events()`: the `events` query every 200 ms, and a describe once a second while nothing happens. */
export async function* polledEvents(workflow: WorkflowHandle, signal?: AbortSignal): AsyncGenerator<RunEvent> {
  let cursor = 0;
  let lastOpenCheck = Date.now();
  let closed = false;
  while (!signal?.aborted) {
    const page = await workflow.query(eventsQuery, cursor, 200);
    for (const event of page.events) yield event;
    cursor = page.nextCursor;
    if (page.finished || (closed && page.events.length === 0)) return;
    if (page.events.length > 0) continue;
    if (Date.now() - lastOpenCheck >= 1_000) {
      lastOpenCheck = Date.now();
      closed = (await workflow.describe()).status.name !== 'RUNNING';
      if (closed) continue;
    }
    await tick(200);
  }
}

/** The old `RunHandle.liveText()`: a describe every 250 ms for as long as the run runs. */
export async function* polledLiveText(temporal: Client, workflow: WorkflowHandle, signal?: AbortSignal): AsyncGenerator<string> {
  const lastSeen = new Map<string, string>();
  while (!signal?.aborted) {
    const description = await workflow.describe();
    for (const activity of description.raw.pendingActivities ?? []) {
      const payloads = activity.heartbeatDetails?.payloads;
      if (!payloads?.length) continue;
      const details = await decodeFromPayloadsAtIndex<unknown>(temporal.options.loadedDataConverter, 0, payloads).catch(() => undefined);
      if (!isModelTextSnapshot(details) || lastSeen.get(activity.activityId ?? '') === details.text) continue;
      lastSeen.set(activity.activityId ?? '', details.text);
      yield details.text;
    }
    if (description.status.name !== 'RUNNING') return;
    await tick(250);
  }
}
