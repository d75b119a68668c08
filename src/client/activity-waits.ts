// What a run's pending activities wait for, read from their heartbeat details: the hook running now, and billed calls not counted yet.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { roundUsd } from '../protocol/model-price';
import { readStepState } from '../protocol/model-step-state';
import type { RunningHook, UncountedSpend } from '../protocol/run-types';

/**
 * The hooks running in a run's pending activities and the calls their providers billed that the
 * run has not counted (`RunStatus.runningHooks`, `uncountedSpend`), from a description of the run
 * (DescribeWorkflowExecution). The details reach the server with the activity's next heartbeat:
 * a hook is seen within a heartbeat interval of its start.
 */
export async function activityWaits(
  temporal: Client,
  description: WorkflowExecutionDescription,
  now = Date.now(),
): Promise<{ runningHooks?: RunningHook[]; uncountedSpend?: UncountedSpend[] }> {
  const runningHooks: RunningHook[] = [];
  const uncountedSpend: UncountedSpend[] = [];
  for (const activity of description.raw.pendingActivities ?? []) {
    const payloads = activity.heartbeatDetails?.payloads;
    if (!payloads?.length) continue;
    const details = await decodeFromPayloadsAtIndex<unknown>(temporal.options.loadedDataConverter, 0, payloads).catch(() => undefined);
    const { spend, runningHook } = readStepState(details);
    const activityId = activity.activityId ?? '';
    if (runningHook) {
      const { hook, point, startedAt, limitMs } = runningHook;
      runningHooks.push({ hook, point, activityId, attempt: activity.attempt ?? 1, runningForMs: Math.max(0, now - startedAt), limitMs });
    }
    const calls = spend ? [...spend.lost, ...(spend.answered ? [spend.answered] : [])] : [];
    if (calls.length > 0) {
      uncountedSpend.push({
        activityId,
        calls: calls.length,
        costUsd: roundUsd(calls.reduce((sum, call) => sum + (call.costUsd ?? 0), 0)),
        unpricedCalls: calls.filter((call) => call.costUsd === null).length,
      });
    }
  }
  return { ...(runningHooks.length > 0 ? { runningHooks } : {}), ...(uncountedSpend.length > 0 ? { uncountedSpend } : {}) };
}
