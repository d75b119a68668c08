// What a run's activities are doing right now (streamed text, tool progress), read from heartbeats while an activity is open.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isModelTextSnapshot, isToolProgressSnapshot, type LiveSnapshot } from '../protocol/live-snapshots';
import { withoutStepState } from '../protocol/model-step-state';
import { watchHistory } from './history-watch';

/** For this long after an activity opens, and until its first snapshot shows, heartbeats are read at least this often. */
const FIRST_SNAPSHOT_WINDOW_MS = 1_500;
const FIRST_SNAPSHOT_POLL_MS = 80;

/**
 * What a run's activities are doing right now: the text of model steps as it is written and the
 * progress of tool calls. Reads the heartbeat details of pending activities (DescribeWorkflowExecution)
 * every `pollMs` while an activity is open; while none is, it waits for the history to grow
 * (`watchHistory`, a long poll) instead of describing. Yields a snapshot whenever one changes; ends
 * when the run is no longer running. Nothing here touches the workflow history.
 */
export async function* liveSnapshots(
  temporal: Client,
  workflow: WorkflowHandle,
  options: { pollMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<LiveSnapshot> {
  const pollMs = options.pollMs ?? 250;
  const lastSeen = new Map<string, string>();
  const history = new HistoryState(temporal, workflow.workflowId, options.signal);
  try {
    // Describe at once: a follower usually starts as its run does, before the history shows the
    // first activity, and the description itself says which activities are open.
    let describedOpen = true;
    while (!options.signal?.aborted) {
      if (history.pendingActivities === 0 && !describedOpen) {
        if (history.ended) return;
        await history.changed(null);
        continue;
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
      describedOpen = (description.raw.pendingActivities?.length ?? 0) > 0;
      // Until an open activity's first snapshot shows, look more often: the first words are what a reader waits for.
      const fresh = !shown && performance.now() - history.activitiesSince < FIRST_SNAPSHOT_WINDOW_MS;
      await history.changed(fresh ? Math.min(pollMs, FIRST_SNAPSHOT_POLL_MS) : pollMs, false);
    }
  } finally {
    history.stop();
  }
}

/** The open activities and the end of a workflow's chain of executions, as its history says, followed in the background. */
class HistoryState {
  pendingActivities = 0;
  ended = false;
  /** When the open activities last changed (performance.now()); a follower starts as if they just had. */
  activitiesSince = performance.now();
  private readonly stopping = new AbortController();
  private readonly signal: AbortSignal;
  private wake: (() => void) | null = null;

  constructor(temporal: Client, workflowId: string, signal: AbortSignal | undefined) {
    this.signal = signal ? AbortSignal.any([signal, this.stopping.signal]) : this.stopping.signal;
    void this.follow(temporal, workflowId);
  }

  /** Resolves at the next change of the history (or when `ms` passes, or on abort); `onGrowth: false` waits out `ms` regardless. */
  changed(ms: number | null, onGrowth = true): Promise<void> {
    return new Promise((resolve) => {
      if (this.signal.aborted) return resolve();
      const done = () => {
        if (timer) clearTimeout(timer);
        this.signal.removeEventListener('abort', done);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = ms === null ? null : setTimeout(done, ms);
      if (onGrowth) this.wake = done;
      this.signal.addEventListener('abort', done, { once: true });
    });
  }

  stop(): void {
    this.stopping.abort();
  }

  private async follow(temporal: Client, workflowId: string): Promise<void> {
    try {
      for await (const growth of watchHistory(temporal, temporal.options.namespace, workflowId, { signal: this.signal })) {
        if (growth.pendingActivities !== this.pendingActivities) this.activitiesSince = performance.now();
        this.pendingActivities = growth.pendingActivities;
        if (growth.closed && growth.continuedAs === null) this.ended = true;
        this.wake?.();
      }
    } catch {
      // A dropped long poll: describe on every tick from now on, as the history no longer tells when to.
      this.pendingActivities = Number.POSITIVE_INFINITY;
    }
    if (!this.signal.aborted) this.ended ||= this.pendingActivities !== Number.POSITIVE_INFINITY;
    this.wake?.();
  }
}
