import { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createBenchActivities } from '../activities/bench-activities';
import { QueryConversationSource } from '../activities/conversation-source';
import type { ModelRegistry } from '../models/model-registry';
import { DEFAULT_TASK_QUEUE } from '../shared/wire-names';
import type { Tool } from '../tools/define-tool';
import { ToolRegistry } from '../tools/tool-registry';
import { defaultModelRegistry } from './default-models';

export interface AgentWorkerOptions {
  /** The worker's connection (tasks) ... */
  connection: NativeConnection;
  /** ... and a client, which model steps use to read their run's conversation. */
  client: Client;
  namespace?: string;
  taskQueue?: string;
  tools: Iterable<Tool>;
  models?: ModelRegistry;
  /** A pre-built workflow bundle (faster start); otherwise the workflows are bundled now. */
  workflowBundlePath?: string;
  /** Called when a baseline benchmark activity starts (bench only). */
  onBenchActivityStart?: (workflowId: string) => void;
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
  const tools = new ToolRegistry(options.tools);
  const activities = {
    ...createActivities({
      tools,
      models: options.models ?? defaultModelRegistry(),
      conversations: new QueryConversationSource(options.client),
    }),
    ...createBenchActivities(options.onBenchActivityStart),
  };
  const bundlePath = options.workflowBundlePath ?? process.env.AGENT_WORKFLOW_BUNDLE;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    activities,
    ...options.workerOptions,
  });
}
