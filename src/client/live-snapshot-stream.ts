// What a run's activities are doing right now (streamed text, tool progress), read from heartbeats while an activity is open.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isModelTextSnapshot, isToolProgressSnapshot, type LiveSnapshot } from '../protocol/live-snapshots';
import { withoutStepState } from '../protocol/model-step-state';
import { watchHistory, type HistoryGrowth } from './history-watch';

/** For this long after an activity opens, and until its first snapshot shows, heartbeats are read at least this often. */
const FIRST_SNAPSHOT_WINDOW_MS = 1_500;
const FIRST_SNAPSHOT_POLL_MS = 80;

/**
 * What a run's activities are doing right now: the text of model steps as it is written and the
 * progress of tool calls. Reads the heartbeat details of pending activities (DescribeWorkflowExecution)
 * every `pollMs` while an activity is open; while none is, it waits for the history to show one
 * (`watchHistory`, a long poll) instead of describing. Yields a snapshot whenever one changes; ends
 * when the run is no longer running. Nothing here touches the workflow history, and a generator
 * nobody reads sends nothing: every request is made while its reader waits for the next snapshot.
 */
export async function* liveSnapshots(
  temporal: Client,
  workflow: WorkflowHandle,
  options: { pollMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<LiveSnapshot> {
  const pollMs = options.pollMs ?? 250;
  const lastSeen = new Map<string, string>();
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let growth: AsyncGenerator<HistoryGrowth> | null = null;
  // Describe at once: a follower usually starts as its run does, before the history shows the
  // first activity, and the description itself says which activities are open.
  let open = true;
  let openedAt = performance.now();
  try {
    while (!signal.aborted) {
      if (!open) {
        growth ??= watchHistory(temporal, temporal.options.namespace, workflow.workflowId, { signal });
        const next = await nextGrowth(growth, signal);
        if (next === null) return;
        if (next.pendingActivities === 0) continue;
        openedAt = performance.now();
      }
      const description = await workflow.describe();
      let shown = false;
      for (const activity of description.raw.pendingActivities ?? []) {
        const payloads = activity.heartbeatDetails?.payloads;
        if (!payloads?.length) continue;
        const details = await decodeFromPayloadsAtIndex<unknown>(temporal.options.loadedDataConverter, 0, payloads).catch(() => undefined);
        if (!isModelTextSnapshot(details) && !isToolProgressSnapshot(details)) continue;
        shown = true;
        const key = `${activity.activityId}#${details.kind === 'model-text' ? details.attempt : activity.attempt}`;
        const version = details.kind === 'model-text' ? details.text : String(details.count);
        if (lastSeen.get(key) === version) continue;
        lastSeen.set(key, version);
        // The step's own state (its spend, the hook running) is not part of the snapshot.
        yield withoutStepState(details);
      }
      if (description.status.name !== 'RUNNING') return;
      open = (description.raw.pendingActivities?.length ?? 0) > 0;
      if (!open) continue;
      // Until an open activity's first snapshot shows, look more often: the first words are what a reader waits for.
      const fresh = !shown && performance.now() - openedAt < FIRST_SNAPSHOT_WINDOW_MS;
      await sleep(fresh ? Math.min(pollMs, FIRST_SNAPSHOT_POLL_MS) : pollMs, undefined, { signal }).catch(() => undefined);
    }
  } finally {
    stop.abort();
  }
}

/** The next growth of the history, or null when the chain of executions has closed (or the wait was aborted). */
async function nextGrowth(growth: AsyncGenerator<HistoryGrowth>, signal: AbortSignal): Promise<HistoryGrowth | null> {
  try {
    const next = await growth.next();
    if (next.done === true || (next.value.closed && next.value.continuedAs === null)) return null;
    return next.value;
  } catch (error) {
    if (signal.aborted) return null;
    throw error;
  }
}
