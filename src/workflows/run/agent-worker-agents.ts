import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { AgentOffer } from '../../protocol/agent-offers';

/**
 * The agents the task queue's workers offer (`durable-agents agents list`): a workflow of its own,
 * because only a worker knows its definitions: one short activity, no agent run.
 * @example
 * const offers = await client.workflow.execute(WireName.workerAgentsWorkflow, { taskQueue: 'agent-runs', workflowId: 'worker-agents-1', workflowExecutionTimeout: '20s' });
 */
export async function agentWorkerAgents(): Promise<AgentOffer[]> {
  const { listWorkerAgents } = proxyActivities<AgentActivities>({
    activityId: 'list-worker-agents',
    scheduleToCloseTimeout: '15s',
    retry: { maximumAttempts: 3 },
  });
  return listWorkerAgents();
}
