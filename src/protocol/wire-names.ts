/**
 * Stable wire names of the workflow's messages, defined once for the workflow, the client, the
 * tests and anyone using another Temporal client. Changing one breaks running workflows.
 * `agentRunWorkflow` is the workflow type of every agent run.
 * @example
 * import { Client } from '@temporalio/client';
 * import { DEFAULT_TASK_QUEUE, WireName, type AgentRunInput, type AgentRunWorkflow } from 'durable-agents/workflow';
 * import { parseAgentConfig } from 'durable-agents';
 *
 * // Start a run by name, as a client in another language would (`AgentClient.startRun` does
 * // more: it resolves handoff agents and checks the namespace's search attributes).
 * const input: AgentRunInput = { config: parseAgentConfig({ name: 'helper' }), task: 'Hi' };
 * const handle = await new Client().workflow.start<AgentRunWorkflow>(WireName.agentRunWorkflow, {
 *   workflowId: 'helper-1',
 *   taskQueue: DEFAULT_TASK_QUEUE,
 *   args: [input],
 * });
 * const status = await handle.query(WireName.statusQuery);
 */
export const WireName = {
  agentRunWorkflow: 'agentRun',
  /** Lists the tools of a task queue's workers (fork and eval check configs against it). */
  workerToolsWorkflow: 'agentWorkerTools',
  /** Lists the agents a task queue's workers offer (`durable-agents agents list`). */
  workerAgentsWorkflow: 'agentWorkerAgents',
  /** Posts a schedule's message into a thread, once per fire (`agents.schedules`, docs/schedules.md). */
  scheduledThreadPostWorkflow: 'scheduledThreadPost',
  statusQuery: 'status',
  eventsQuery: 'events',
  conversationQuery: 'conversation',
  approvalSignal: 'approval',
  decideApprovalUpdate: 'decideApproval',
  injectMessageSignal: 'injectMessage',
  injectMessageUpdate: 'injectMessageChecked',
  skillsChangedSignal: 'skillsChanged',
  /** The workflow type of every thread (a durable multi-turn conversation). */
  agentThreadWorkflow: 'agentThread',
  sendMessageUpdate: 'sendMessage',
  sendMessageSignal: 'sendMessageSignal',
  awaitTurnUpdate: 'awaitTurn',
  closeThreadUpdate: 'closeThread',
  closeThreadSignal: 'closeThreadSignal',
  threadQuery: 'thread',
  /**
   * A no-op signal that wakes a long-lived execution (a thread, a provider limiter, a concurrency
   * cap's slots) so it sees that its Worker Deployment's target version changed and continues as
   * new on it (`durable-agents deployment move`).
   */
  checkVersionSignal: 'checkVersion',
} as const;

/**
 * The default task queue of agent workers and `AgentClient` (`agent-runs`). Runs start on the
 * client's queue; a worker with the agent plugin must poll the same one.
 * @example
 * import { NativeConnection, Worker } from '@temporalio/worker';
 * import { AgentPlugin } from 'durable-agents/worker';
 * import { DEFAULT_TASK_QUEUE } from 'durable-agents/workflow';
 *
 * const connection = await NativeConnection.connect({ address: 'localhost:7233' });
 * const worker = await Worker.create({ connection, taskQueue: DEFAULT_TASK_QUEUE, plugins: [new AgentPlugin({ tools })] });
 */
export const DEFAULT_TASK_QUEUE = 'agent-runs';

/** The built-in tool that reads offloaded tool results (added to a run once something is offloaded). */
export const READ_ARTIFACT_TOOL = 'read_artifact';

/** Sub-agent tools: carried out by the workflow as child workflows. */
export const SPAWN_SELF_TOOL = 'spawn_self';
export const SPAWN_PARALLEL_TOOL = 'spawn_subagents';

/**
 * The memory tools: an agent with `memory: true` gets all three (docs/memory.md). They are worker
 * tools like any other; the workflow only adds their names to the run's tools.
 */
export const REMEMBER_TOOL = 'remember';
export const RECALL_TOOL = 'recall';
export const FORGET_TOOL = 'forget';
export const MEMORY_TOOLS: readonly string[] = [REMEMBER_TOOL, RECALL_TOOL, FORGET_TOOL];
