import { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { dataConverterFromEnvironment } from '../codec/encryption-codec';
import { createActivities } from '../activities';
import { QueryConversationSource } from '../activities/conversation-source';
import type { ModelRegistry } from '../models/model-registry';
import { DEFAULT_TASK_QUEUE } from '../shared/wire-names';
import type { Tool } from '../tools/define-tool';
import { ToolRegistry } from '../tools/tool-registry';
import { defaultModelRegistry } from './default-models';
import path from 'node:path';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { FolderArtifactStore } from '../artifacts/folder-artifact-store';
import { createReadArtifactTool, READ_ARTIFACT_TOOL } from '../artifacts/read-artifact-tool';
import { DEFAULT_DATA_DIR } from '../devserver/dev-server';
import { subagentTools } from '../tools/subagent-tools';
import { McpConnections } from '../mcp/mcp-connections';

/** How often (at most) live heartbeat details reach the server, in ms. */
const DEFAULT_LIVE_UPDATE_MS = 250;

export interface AgentWorkerOptions {
  /** The worker's connection (tasks) ... */
  connection: NativeConnection;
  /** ... and a client, which model steps use to read their run's conversation. */
  client: Client;
  namespace?: string;
  taskQueue?: string;
  tools: Iterable<Tool>;
  models?: ModelRegistry;
  /** Where large tool results go. Default: a folder (AGENT_ARTIFACT_DIR or .temporal-data/artifacts). */
  artifacts?: ArtifactStore;
  /** A pre-built workflow bundle (faster start); otherwise the workflows are bundled now. */
  workflowBundlePath?: string;
  /** MCP clients (one per server, reused). Close them with `closeAll()` after the worker stops. */
  mcp?: McpConnections;
  /**
   * Payload encryption; it must match the client's (`options.client`). Default: from
   * AGENT_PAYLOAD_KEYS, like AgentClient.connect.
   */
  dataConverter?: DataConverter;
  /** Anything else of Temporal's WorkerOptions (for example `maxCachedWorkflows`). */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * A worker that hosts the agent-run workflow and its activities: tools, model providers and API
 * keys live here and only here.
 * @example
 * const worker = await createAgentWorker({ connection, client, tools: demoTools });
 * await worker.run();
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const artifacts = options.artifacts ?? new FolderArtifactStore(process.env.AGENT_ARTIFACT_DIR ?? path.join(DEFAULT_DATA_DIR, 'artifacts'));
  const tools = new ToolRegistry(options.tools);
  if (!tools.has(READ_ARTIFACT_TOOL)) tools.register(createReadArtifactTool(artifacts));
  for (const tool of subagentTools) if (!tools.has(tool.name)) tools.register(tool);
  const activities = createActivities({
    tools,
    artifacts,
    mcp: options.mcp ?? new McpConnections(),
    models: options.models ?? defaultModelRegistry(),
    conversations: new QueryConversationSource(options.client),
  });
  const dataConverter = options.dataConverter ?? dataConverterFromEnvironment();
  const bundlePath = options.workflowBundlePath ?? process.env.AGENT_WORKFLOW_BUNDLE;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    activities,
    ...(dataConverter ? { dataConverter } : {}),
    // Heartbeats carry streamed model text and MCP progress to clients (DescribeWorkflowExecution),
    // so they may reach the server this often instead of at 80% of the heartbeat timeout.
    maxHeartbeatThrottleInterval: Number(process.env.AGENT_LIVE_UPDATE_MS ?? DEFAULT_LIVE_UPDATE_MS),
    // Parked runs (approvals, long waits) stay in this cache until evicted; a smaller cache trades
    // replay time for memory (docs/performance.md).
    ...(process.env.AGENT_MAX_CACHED_WORKFLOWS ? { maxCachedWorkflows: Number(process.env.AGENT_MAX_CACHED_WORKFLOWS) } : {}),
    ...options.workerOptions,
  });
}
