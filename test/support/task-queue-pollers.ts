import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { eventually } from './test-env';

/**
 * Waits until the server lists a worker polling `taskQueue` for workflow tasks: the workers' tool
 * check (and any probe workflow) asks them only once one polls.
 */
export async function waitForPollers(client: Client, taskQueue: string, limitMs?: number): Promise<void> {
  await eventually(async () => {
    const described = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (described.pollers?.length ?? 0) > 0;
  }, limitMs);
}
