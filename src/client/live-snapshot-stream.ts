import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isModelTextSnapshot, isToolProgressSnapshot, type LiveSnapshot } from '../protocol/live-snapshots';
import { withoutStepState } from '../protocol/model-step-state';

/**
 * What a run's activities are doing right now: the text of model steps as it is written and the
 * progress of tool calls. Polls DescribeWorkflowExecution and reads the heartbeat details of
 * pending activities; yields a snapshot whenever one changes; ends when the run is no longer
 * running. Nothing here touches the workflow history.
 */
export async function* liveSnapshots(
  temporal: Client,
  workflow: WorkflowHandle,
  options: { pollMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<LiveSnapshot> {
  const pollMs = options.pollMs ?? 250;
  const lastSeen = new Map<string, string>();
  while (!options.signal?.aborted) {
    const description = await workflow.describe();
    for (const activity of description.raw.pendingActivities ?? []) {
      const payloads = activity.heartbeatDetails?.payloads;
      if (!payloads?.length) continue;
      const details = await decodeFromPayloadsAtIndex<unknown>(temporal.options.loadedDataConverter, 0, payloads).catch(() => undefined);
      if (!isModelTextSnapshot(details) && !isToolProgressSnapshot(details)) continue;
      const key = `${activity.activityId}#${details.kind === 'model-text' ? details.attempt : activity.attempt}`;
      const version = details.kind === 'model-text' ? details.text : String(details.count);
      if (lastSeen.get(key) === version) continue;
      lastSeen.set(key, version);
      // The step's own state (its spend, the hook running) is not part of the snapshot.
      yield withoutStepState(details);
    }
    if (description.status.name !== 'RUNNING') return;
    await sleep(pollMs, options.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
