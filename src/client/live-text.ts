import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isModelTextSnapshot, type ModelTextSnapshot } from '../shared/live-text';

/**
 * The text of a run's model steps as it is written: polls DescribeWorkflowExecution and reads the
 * heartbeat details of pending model steps. Yields a snapshot whenever a step's text grows; ends
 * when the run is no longer running. Nothing here touches the workflow history.
 */
export async function* liveModelText(
  temporal: Client,
  workflow: WorkflowHandle,
  options: { pollMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<ModelTextSnapshot> {
  const pollMs = options.pollMs ?? 250;
  const lastSeen = new Map<string, string>();
  while (!options.signal?.aborted) {
    const description = await workflow.describe();
    for (const activity of description.raw.pendingActivities ?? []) {
      const payloads = activity.heartbeatDetails?.payloads;
      if (!payloads?.length) continue;
      const details = await decodeFromPayloadsAtIndex<unknown>(temporal.options.loadedDataConverter, 0, payloads).catch(() => undefined);
      if (!isModelTextSnapshot(details)) continue;
      const key = `${activity.activityId}#${details.attempt}`;
      if (lastSeen.get(key) === details.text) continue;
      lastSeen.set(key, details.text);
      yield details;
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
