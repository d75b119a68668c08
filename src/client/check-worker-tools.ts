// Refusing configs that name tools the task queue's workers lack, before a run, fork or evaluation starts.
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { AgentConfig } from '../config/agent-config';
import { AgentConfigError, AgentRuntimeError, ErrorCode } from '../protocol/errors';
import { splitMcpToolName } from '../protocol/mcp-tool-names';
import { WireName } from '../protocol/wire-names';
import { askWorkers } from './worker-probe';
import { WorkerAnswers } from './worker-answers';

/** How long the task queue's workers have to say which tools they have, before a fork or an evaluation. */
const PROBE_TIMEOUT: Duration = '30s';

/** … and before a plain run, which starts anyway when they do not say (it waits for a worker durably). */
const START_PROBE_TIMEOUT: Duration = '10s';

/** One tool of one agent's config. */
interface WantedTool {
  agent: string;
  tool: string;
}

/** The tools the configs name, without MCP tools (`server__tool`: the MCP servers', not the workers'). */
function wantedTools(configs: readonly AgentConfig[]): WantedTool[] {
  return configs.flatMap((config) => config.tools.filter((tool) => !splitMcpToolName(tool)).map((tool) => ({ agent: config.name, tool })));
}

/** Asks the task queue's workers which tools they have: a short `agentWorkerTools` workflow (one activity). */
function askForTools(client: Client, taskQueue: string, timeout: Duration, why: string): Promise<string[]> {
  return askWorkers<string[]>(client, WireName.workerToolsWorkflow, taskQueue, timeout, `which tools the agent workers have (asked before ${why})`);
}

/** Refuses `wanted` tools missing from `available`, saying how to register them. */
function refuseMissing(wanted: readonly WantedTool[], available: readonly string[], taskQueue: string): void {
  const missing = wanted.filter(({ tool }) => !available.includes(tool));
  if (missing.length === 0) return;
  const problems = missing.map(
    ({ agent, tool }) => `tools: agent '${agent}' names tool '${tool}', which the workers on task queue '${taskQueue}' do not have`,
  );
  const names = [...new Set(missing.map(({ tool }) => tool))].join(', ');
  throw new AgentConfigError(
    `Invalid agent config:\n  ${problems.join('\n  ')}\n  (the workers have: ${available.join(', ')})\n` +
      `  Register ${names} on the workers (AgentPlugin({ tools: [...] }), createAgentWorker({ tools }), or \`durable-agents worker --tools <module>\`), or remove it from the config.`,
    problems,
  );
}

/**
 * Refuses configs that name tools the task queue's workers lack, before a fork or an evaluation
 * starts (a run would only find out at the tool's first call). The workers are asked through a
 * short `agentWorkerTools` workflow; MCP tools (`server__tool`) are the MCP servers' and not checked.
 * @throws AgentConfigError naming each missing tool and its agent; AgentRuntimeError
 * (`WorkersUnavailable`) when no worker answers on the task queue.
 */
export async function assertWorkersHaveTools(client: Client, taskQueue: string, configs: readonly AgentConfig[]): Promise<void> {
  const wanted = wantedTools(configs);
  if (wanted.length === 0) return;
  let available: string[];
  try {
    available = await askForTools(client, taskQueue, PROBE_TIMEOUT, 'a fork or an evaluation');
  } catch (error) {
    throw new AgentRuntimeError(
      ErrorCode.workersUnavailable,
      `No agent worker on task queue '${taskQueue}' said which tools it has within ${PROBE_TIMEOUT} (${(error as Error).message}): start a worker (durable-agents worker) and try again`,
    );
  }
  refuseMissing(wanted, available, taskQueue);
}

/**
 * The check `AgentClient.startRun` makes: like `assertWorkersHaveTools`, but a run is never held
 * back for want of an answer. With no worker polling the task queue there is nothing to ask, and
 * the run starts and waits for one durably; a worker that does not answer within 10 s is passed
 * over the same way. A tool list the workers gave is reused for a minute per task queue, so
 * starting many runs asks once; only answers are kept, never their absence.
 */
export class WorkerToolsCheck {
  private readonly answers: WorkerAnswers<string[]>;

  constructor(client: Client, namespace: string) {
    this.answers = new WorkerAnswers(client, namespace, (taskQueue) => askForTools(client, taskQueue, START_PROBE_TIMEOUT, 'a run'));
  }

  /** @throws AgentConfigError naming each tool the workers lack, and how to register it. */
  async refuseMissingTools(taskQueue: string, configs: readonly AgentConfig[]): Promise<void> {
    const wanted = wantedTools(configs);
    if (wanted.length === 0) return;
    const available = await this.answers.get(taskQueue);
    if (available) refuseMissing(wanted, available, taskQueue);
  }
}
