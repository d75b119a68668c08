import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { AgentConfig } from '../config/agent-config';
import { AgentConfigError, AgentRuntimeError, ErrorCode } from '../protocol/errors';
import { splitMcpToolName } from '../protocol/mcp-tool-names';
import { WireName } from '../protocol/wire-names';
import type { agentWorkerTools } from '../workflows/agent-worker-tools';

/** How long the task queue's workers have to say which tools they have. */
const PROBE_TIMEOUT = '30s';

/**
 * Refuses configs that name tools the task queue's workers lack, before a fork or an evaluation
 * starts (a run would only find out at the tool's first call). The workers are asked through a
 * short `agentWorkerTools` workflow; MCP tools (`server__tool`) are the MCP servers' and not checked.
 * @throws AgentConfigError naming each missing tool and its agent; AgentRuntimeError
 * (`WorkersUnavailable`) when no worker answers on the task queue.
 */
export async function assertWorkersHaveTools(client: Client, taskQueue: string, configs: readonly AgentConfig[]): Promise<void> {
  const wanted = configs.flatMap((config) => config.tools.filter((tool) => !splitMcpToolName(tool)).map((tool) => ({ agent: config.name, tool })));
  if (wanted.length === 0) return;
  let available: string[];
  try {
    available = await client.workflow.execute<typeof agentWorkerTools>(WireName.workerToolsWorkflow, {
      taskQueue,
      workflowId: `worker-tools-${randomUUID().slice(0, 8)}`,
      workflowExecutionTimeout: PROBE_TIMEOUT,
      staticSummary: 'which tools the agent workers have (asked before a fork or an evaluation)',
    });
  } catch (error) {
    throw new AgentRuntimeError(
      ErrorCode.workersUnavailable,
      `No agent worker on task queue '${taskQueue}' said which tools it has within ${PROBE_TIMEOUT} (${(error as Error).message}): start a worker (durable-agents worker) and try again`,
    );
  }
  const missing = wanted.filter(({ tool }) => !available.includes(tool));
  if (missing.length === 0) return;
  const problems = missing.map(({ agent, tool }) => `tools: agent '${agent}' names tool '${tool}', which the workers on task queue '${taskQueue}' do not have`);
  throw new AgentConfigError(`Invalid agent config:\n  ${problems.join('\n  ')}\n  (the workers have: ${available.join(', ')})`, problems);
}
