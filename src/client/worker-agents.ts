// The agents the task queue's workers offer, asked of the workers themselves (`durable-agents agents list`).
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { AgentOffer } from '../protocol/agent-offers';
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import { WireName } from '../protocol/wire-names';
import { askWorkers } from './worker-probe';

/** How long the task queue's workers have to say which agents they offer. */
const AGENTS_PROBE_TIMEOUT: Duration = '30s';

/**
 * The agents a worker of `taskQueue` offers (its `agents` / `agentsFolder` / `worker --agents`),
 * by name, with their versions, models and tools. One worker answers: give every worker of a
 * task queue the same definitions (a Worker Deployment's build does).
 * @throws AgentRuntimeError (`WorkersUnavailable`) when no worker answers within 30 s.
 * @example
 * const offers = await listWorkerAgents(client, 'agent-runs');
 * // [{ name: 'support', version: '3f2a9c0d1b7e', label: 'release-42', model: 'openai:gpt-4o-mini', tools: [...], ... }]
 */
export async function listWorkerAgents(client: Client, taskQueue: string): Promise<AgentOffer[]> {
  try {
    return await askWorkers<AgentOffer[]>(
      client,
      WireName.workerAgentsWorkflow,
      taskQueue,
      AGENTS_PROBE_TIMEOUT,
      'which agents the agent workers offer',
    );
  } catch (error) {
    throw new AgentRuntimeError(
      ErrorCode.workersUnavailable,
      `No agent worker on task queue '${taskQueue}' said which agents it offers within ${AGENTS_PROBE_TIMEOUT} (${(error as Error).message}): start a worker (durable-agents worker --agents <folder>) and try again`,
    );
  }
}
