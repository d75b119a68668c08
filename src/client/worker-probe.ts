// Asking the task queue's workers something only they know (their tools, their agents): a short probe workflow of one activity.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';

/**
 * Runs the probe workflow `workflowType` on `taskQueue` and returns its answer, then deletes the
 * execution (answered or timed out) so that the namespace's run list holds agent runs, not one
 * probe per question. `purpose` goes into the probe's summary (the Web UI shows why it ran).
 * @throws the workflow's failure (for example a timeout when no worker answers within `timeout`).
 */
export async function askWorkers<Answer>(
  client: Client,
  workflowType: string,
  taskQueue: string,
  timeout: Duration,
  purpose: string,
): Promise<Answer> {
  const workflowId = `${workflowType}-${randomUUID().slice(0, 8)}`;
  try {
    return await client.workflow.execute<() => Promise<Answer>>(workflowType, {
      taskQueue,
      workflowId,
      workflowExecutionTimeout: timeout,
      staticSummary: purpose,
    });
  } finally {
    // Best effort: a probe left behind is harmless, and the caller's answer matters more.
    await client.workflowService
      .deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId } })
      .catch(() => undefined);
  }
}
