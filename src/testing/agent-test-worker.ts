// A worker with the agent plugin and a scripted model on a test server: what a user's agent tests start.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { FolderArtifactStore } from '../artifacts/folder-artifact-store';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { AgentClient } from '../client/agent-client';
import { FolderMemoryStore } from '../memory/folder-memory-store';
import type { MemoryStore } from '../memory/memory-store';
import type { ModelProvider } from '../models/model-provider';
import { ScriptedModel, type ModelScriptInput, type ScriptedCall } from '../models/scripted-model';
import type { Tool } from '../tools/define-tool';
import { AgentPlugin } from '../worker/agent-plugin';
import { defaultModelRegistry } from '../worker/default-models';

/**
 * The Temporal server a test worker runs on: a `TestWorkflowEnvironment` from `@temporalio/testing`
 * fits as it is (its `client`, `nativeConnection` and `namespace`).
 */
export interface AgentTestServer {
  /** The client runs are started with (and the worker's activities read conversations with). */
  client: Client;
  /** The connection the worker polls on. */
  nativeConnection: NativeConnection;
  /** Default: the client's namespace. */
  namespace?: string;
}

/** What a test worker has: your tools, scripts for the scripted model, and any worker setting. */
export interface AgentTestWorkerOptions {
  /** The tools agents may call (made with `defineTool`). */
  tools?: Iterable<Tool>;
  /** Scripts by name: a config whose model is `scripted:<name>` is answered by that script. */
  scripts?: Record<string, ModelScriptInput>;
  /** The folder `scripted:<file>` paths resolve against. Default: the working directory. */
  scriptsDir?: string;
  /** More model providers by prefix (for example a real provider pointed at a local fake server). */
  providers?: Record<string, ModelProvider>;
  /** Default: a fresh `agent-test-<id>` queue, so tests that share a server do not take each other's runs. */
  taskQueue?: string;
  /** Default: a fresh temporary folder, removed by `close()`. */
  artifacts?: ArtifactStore;
  /** What agents with `memory: true` remember. Default: a folder in the temporary folder. */
  memory?: MemoryStore;
  /**
   * Anything else of Temporal's `WorkerOptions`: your own `workflowsPath` and `activities` (to test
   * workflows that call `runAgent`), a `workflowBundle`, a `dataConverter` matching the client's.
   * By default a workflow nondeterminism error fails the workflow, so a test sees it at once.
   */
  workerOptions?: Partial<WorkerOptions>;
}

/** A running test worker (polling when it is returned) and a client on its task queue. Stop it with `close()`. */
export interface AgentTestWorker {
  /** Starts and reads runs on the worker's task queue. */
  agents: AgentClient;
  worker: Worker;
  taskQueue: string;
  /** The `scripted:` provider (add scripts with `addScript`). */
  scripted: ScriptedModel;
  /** Every scripted model call so far, in order: assert on what the model was given. */
  modelCalls: ScriptedCall[];
  /** A temporary folder with the artifacts and memory (unless given) and skill checkouts; `close()` removes it. */
  dataFolder: string;
  /** Stops the worker (in-flight tasks drain), then removes the temporary folder. */
  close(): Promise<void>;
}

/**
 * Starts a worker with `AgentPlugin` on a test server, with the scripted model (scripts fail a step
 * with `ScriptedModelMismatch` on a call they do not expect), on a task queue of its own, and
 * returns an `AgentClient` for it. Everything runs for real: the workflow, its activities and your
 * tools; only the model is scripted. The server needs the agent search attributes
 * (`agentSearchAttributes`); the worker uses the package's prebuilt workflow bundle unless
 * `workerOptions` names workflows.
 * @example
 * import { TestWorkflowEnvironment } from '@temporalio/testing';
 * import { agentSearchAttributes, startAgentTestWorker } from 'durable-agents/testing';
 * import { lookupOrder } from '../src/tools';
 *
 * const environment = await TestWorkflowEnvironment.createLocal({ server: { searchAttributes: [...agentSearchAttributes] } });
 * const testWorker = await startAgentTestWorker(environment, {
 *   tools: [lookupOrder],
 *   scripts: { support: { replies: [{ toolCalls: [{ name: 'lookup_order', args: { orderId: '42' } }] }, { text: 'Order 42: {{tool:lookup_order}}' }] } },
 * });
 * try {
 *   const run = await testWorker.agents.startRun({ config: { name: 'support', model: 'scripted:support', tools: ['lookup_order'] }, task: 'Where is order 42?' });
 *   console.log((await run.result()).output); // Order 42: …
 * } finally {
 *   await testWorker.close();
 *   await environment.teardown();
 * }
 */
export async function startAgentTestWorker(server: AgentTestServer, options: AgentTestWorkerOptions = {}): Promise<AgentTestWorker> {
  const namespace = server.namespace ?? server.client.options.namespace;
  const taskQueue = options.taskQueue ?? `agent-test-${randomUUID()}`;
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'durable-agents-test-'));
  const modelCalls: ScriptedCall[] = [];
  const scripted = new ScriptedModel({
    scripts: options.scripts,
    ...(options.scriptsDir ? { baseDir: options.scriptsDir } : {}),
    onCall: (call) => modelCalls.push(call),
  });
  const models = defaultModelRegistry(scripted);
  for (const [prefix, provider] of Object.entries(options.providers ?? {})) models.register(prefix, provider);
  const plugin = new AgentPlugin({
    tools: options.tools ?? [],
    models,
    artifacts: options.artifacts ?? new FolderArtifactStore(path.join(scratch, 'artifacts')),
    skillCacheDir: path.join(scratch, 'skill-cache'),
    memory: options.memory ?? new FolderMemoryStore(path.join(scratch, 'memory')),
    client: server.client,
  });
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection: server.nativeConnection,
      namespace,
      taskQueue,
      workflowFailureErrorTypes: { '*': ['DeterminismViolationError'] },
      ...options.workerOptions,
      plugins: [plugin, ...(options.workerOptions?.plugins ?? [])],
    });
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  const running = worker.run();
  try {
    await untilRunning(worker, running);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  // Observed here so a worker that stops early is not an unhandled rejection; close() reports it.
  running.catch(() => {});
  return {
    agents: new AgentClient(server.client, { namespace, taskQueue }),
    worker,
    taskQueue,
    scripted,
    modelCalls,
    dataFolder: scratch,
    async close() {
      try {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Resolves once the worker polls: it turns RUNNING after its plugins' start (the plugin opens the
 * memory store first), and only a RUNNING worker can be shut down. Rejects with the worker's
 * error when it stops before that (a memory store it cannot reach, say).
 */
async function untilRunning(worker: Worker, running: Promise<void>): Promise<void> {
  let stopped = false;
  const stop = running.then(
    () => void (stopped = true),
    () => void (stopped = true),
  );
  while (!stopped && worker.getState() === 'INITIALIZED') await Promise.race([stop, new Promise((resolve) => setTimeout(resolve, 10))]);
  if (stopped) await running;
}
