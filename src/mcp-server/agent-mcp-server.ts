// The MCP server of one session: the exposed agents as tools, calls run live or as tasks, approvals elicited.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type CreateTaskResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../client/agent-client';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import type { FeedRegistry } from '../gateway/streams/feed-registry';
import type { GatewayAccess } from '../gateway/gateway-access';
import type { Principal } from '../gateway/gateway-auth';
import { callAgentTool, type CallExtra } from './agent-tool-call';
import { toolDefinition, type AgentTool, type AgentToolCatalog } from './agent-tool-catalog';
import { checkedArguments, type AgentToolArguments } from './agent-tool-results';
import { taskOf, WorkflowTaskStore } from './workflow-task-store';

/** The name MCP clients see for this server. */
export const MCP_SERVER_NAME = 'durable-agents';

/** What one session's server serves, and to whom. */
export interface AgentMcpServerOptions {
  agents: AgentClient;
  /** The exposed agents (shared by the sessions of one door, so the workers are asked once). */
  catalog: AgentToolCatalog;
  /** The authenticated caller: the tools it may use, the decider of what it approves. */
  principal: Principal;
  /** Approver rules (tool globs → principals), as the console and the gateway apply them. Default: none. */
  access?: GatewayAccess;
  /** Signs each decision's proof of the principal, for agents with `require_verified_decisions`. */
  decisionKey?: DecisionSigningKey;
  /** The gateway's shared feeds, which live calls follow their runs with (absent: the library's `events()`, as over stdio). */
  feeds?: FeedRegistry;
}

/**
 * An MCP server (the official SDK's low-level `Server`) whose tools are the exposed agents. Connect
 * it to one transport: a session of the streamable HTTP door or stdio. It holds no run state: a
 * live call follows its run through the gateway's shared feeds (or, without a gateway, the client
 * library), and a task is its run's workflow.
 */
export function createAgentMcpServer(options: AgentMcpServerOptions): Server {
  const { agents, catalog, principal } = options;
  const access = options.access ?? {};
  const server = new Server(
    { name: MCP_SERVER_NAME, version: '0.2.0' },
    {
      capabilities: { tools: { listChanged: false }, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: new WorkflowTaskStore(agents, catalog, principal),
      instructions: 'Each tool is an agent: give it a task (and a threadId to continue a conversation); it answers when its run ends.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await catalog.toolsFor(principal)).map(toolDefinition) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
    const tool = await catalog.find(principal, request.params.name);
    // An agent not exposed here, or not the principal's to use, is no tool at all.
    if (!tool) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`, { field: 'name' });
    const args = checkedArguments(tool.name, request.params.arguments);
    if (request.params.task) return startTask(options, tool, args);
    const elicits = server.getClientCapabilities()?.elicitation !== undefined && (principal.scopes.has('approve') || principal.scopes.has('admin'));
    return callAgentTool(
      {
        agents,
        access,
        principal,
        ...(options.decisionKey ? { decisionKey: options.decisionKey } : {}),
        ...(options.feeds ? { feeds: options.feeds } : {}),
        server,
        elicits,
      },
      tool,
      args,
      extra as CallExtra,
    );
  });
  return server;
}

/**
 * A task-augmented call: the run starts and the task (its workflow id) comes back at once. Its
 * approvals wait in the approvals inbox (the console, the gateway), its result comes from any
 * server process. A turn of a thread is not a task: the thread id already names the durable work.
 */
async function startTask(options: AgentMcpServerOptions, tool: AgentTool, args: AgentToolArguments): Promise<CreateTaskResult> {
  if (args.threadId !== undefined)
    throw new McpError(McpErrorCode.InvalidParams, `${tool.name}: a call with threadId cannot be a task: call it without task, or start a run`, {
      field: 'threadId',
    });
  if (!options.principal.scopes.has('start') && !options.principal.scopes.has('admin'))
    throw new McpError(McpErrorCode.InvalidRequest, `${options.principal.name} lacks the scope 'start' a new run needs`, { field: 'scope' });
  const run = await options.agents.startRun({ agent: tool.offer.name, task: args.task });
  const description = await run.workflow.describe();
  return { task: taskOf(description) };
}
