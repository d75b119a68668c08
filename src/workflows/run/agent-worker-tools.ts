import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';

/**
 * The tools of the task queue's workers, asked by `fork` and `eval` before they start runs (a
 * config naming a tool the workers lack is refused then, not discovered at its first call). A
 * workflow of its own, because only a worker knows its tools: one short activity, no agent run.
 * @example
 * const tools = await client.workflow.execute(WireName.workerToolsWorkflow, { taskQueue: 'agent-runs', workflowId: 'worker-tools-1', workflowExecutionTimeout: '20s' });
 */
export async function agentWorkerTools(): Promise<string[]> {
  const { listWorkerTools } = proxyActivities<AgentActivities>({
    activityId: 'list-worker-tools',
    scheduleToCloseTimeout: '15s',
    retry: { maximumAttempts: 3 },
  });
  return listWorkerTools();
}
