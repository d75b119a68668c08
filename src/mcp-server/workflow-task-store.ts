// MCP tasks read from Temporal: a task id is the run's workflow id, its status and result the workflow's, so any server process answers for it.
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode as McpErrorCode, McpError, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client';
import type { Principal } from '../gateway/gateway-auth';
import { AgentNameAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import type { AgentTool, AgentToolCatalog } from './agent-tool-catalog';
import { answerResult, endedResult } from './agent-tool-results';

/** How often a client is told to poll `tasks/get` (milliseconds). */
export const TASK_POLL_INTERVAL_MS = 2_000;

/**
 * The task store of one MCP session. It holds nothing: a task is the `agentRun` workflow whose id
 * is the task id, started by a task-augmented `tools/call`, so a client that disconnects can ask
 * any server process of the namespace (`tasks/get`, `tasks/result`, `tasks/cancel`) later. A task
 * lives as long as Temporal keeps the workflow (`ttl: null`). Only runs of agents this door exposes
 * to the principal are tasks to it; any other id is unknown.
 */
export class WorkflowTaskStore implements TaskStore {
  constructor(
    private readonly agents: AgentClient,
    private readonly catalog: AgentToolCatalog,
    private readonly principal: Principal,
  ) {}

  /** Never called: a task-augmented call starts its run first and answers with `taskOf` itself. */
  createTask(_options: CreateTaskOptions): Promise<Task> {
    return Promise.reject(new McpError(McpErrorCode.InternalError, 'Tasks are created by tools/call only'));
  }

  async getTask(taskId: string): Promise<Task | null> {
    const found = await this.find(taskId);
    return found && taskOf(found.description);
  }

  /** Nothing to store: the workflow holds its result. */
  async storeTaskResult(): Promise<void> {}

  async getTaskResult(taskId: string): Promise<Result> {
    const found = await this.find(taskId);
    if (!found) throw new McpError(McpErrorCode.InvalidParams, `Task not found: ${taskId}`);
    const ids = { workflowId: taskId };
    try {
      return answerResult(found.tool, await this.agents.getRun(taskId).result(), ids);
    } catch (error) {
      return endedResult(error, ids);
    }
  }

  /** `cancelled` (tasks/cancel) cancels the run; the SDK's other moves (`input_required` around its own requests) change nothing here. */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled') return;
    const found = await this.find(taskId);
    if (!found) throw new McpError(McpErrorCode.InvalidParams, `Task not found: ${taskId}`);
    await this.agents.getRun(taskId).workflow.cancel();
    // tasks/cancel answers with the task as it is now: wait briefly for the run to end as cancelled.
    for (let attempt = 0; attempt < 20; attempt++) {
      const description = await this.agents.getRun(taskId).workflow.describe();
      if (description.status.name !== 'RUNNING') return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Not offered (the server declares no `tasks.list`): runs are listed by the gateway and the console. */
  listTasks(): Promise<{ tasks: Task[] }> {
    return Promise.reject(new McpError(McpErrorCode.MethodNotFound, 'tasks/list is not offered: list runs through the gateway'));
  }

  private async find(taskId: string): Promise<{ description: WorkflowExecutionDescription; tool: AgentTool } | null> {
    const description = await this.agents
      .getRun(taskId)
      .workflow.describe()
      .catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      });
    if (!description || description.type !== WireName.agentRunWorkflow) return null;
    const agent = description.typedSearchAttributes.get(AgentNameAttribute);
    const tools = await this.catalog.toolsFor(this.principal);
    const tool = tools.find((candidate) => candidate.offer.name === agent);
    return tool ? { description, tool } : null;
  }
}

/** A workflow's execution as an MCP task. */
export function taskOf(description: Pick<WorkflowExecutionDescription, 'workflowId' | 'status' | 'startTime' | 'closeTime'>): Task {
  const status = TASK_STATUS[description.status.name] ?? 'failed';
  const created = description.startTime.toISOString();
  return {
    taskId: description.workflowId,
    status,
    ttl: null,
    createdAt: created,
    lastUpdatedAt: (description.closeTime ?? new Date()).toISOString(),
    pollInterval: TASK_POLL_INTERVAL_MS,
    ...(status === 'working' ? {} : { statusMessage: `The run ${description.status.name.toLowerCase().replace(/_/g, ' ')}` }),
  };
}

const TASK_STATUS: Record<string, Task['status']> = {
  RUNNING: 'working',
  COMPLETED: 'completed',
  CONTINUED_AS_NEW: 'working',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
  TERMINATED: 'failed',
  TIMED_OUT: 'failed',
};
