import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { AgentClient } from '../src/client/agent-client';
import { queryQueueInterceptor } from '../src/connection/query-queue-interceptor';
import { startDevServer, type DevServer } from '../src/devserver/dev-server';
import { ScriptedModel, type ModelScriptInput, type ScriptedCall } from '../src/models/scripted-model';
import { defineTool } from '../src/tools/define-tool';
import { createAgentWorker } from '../src/worker/create-worker';
import type { AgentDefinition } from '../src/agents/define-agent';
import { defineHook, type AnyHook } from '../src/hooks/define-hook';
import { defaultModelRegistry } from '../src/worker/default-models';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { createBaselineActivities } from './baseline/baseline-activities';
import type { AgentTelemetrySetup } from '../src/telemetry/agent-telemetry-setup';

/** A dev server, a worker and clients for one side of a side-by-side measurement. */
export interface BenchStack {
  server: DevServer;
  worker: Worker;
  agents: AgentClient;
  /** Task queue of the baseline worker (bare workflows, same process, same server). */
  baselineTaskQueue: string;
  /** Runs on a worker with an older build of the workflow code (`BENCH_BASELINE_BUNDLE`), when given. */
  baselineCodeAgents: AgentClient | null;
  eagerAgents: AgentClient;
  /** Runs on a worker with one no-op before-tool hook (`withHookedWorker`), else null. */
  hookedAgents: AgentClient | null;
  /** When each tool / baseline activity started, by workflow id (performance.now()). */
  activityStarts: Map<string, number>;
  /** Called on every scripted model call, in the worker's process. */
  onModelCall: (call: ScriptedCall) => void;
  /** Opens the `gate` tool of one run (by workflow id). */
  gates: Map<string, () => void>;
  /** Another agent worker of the same tools and scripts on a task queue of its own (with telemetry, for one), running until closed. */
  addAgentWorker(options: { telemetry?: AgentTelemetrySetup }): Promise<{ agents: AgentClient; close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * A run that calls `noop` with the same (empty) arguments at every step but the last: runs of more
 * than loop_detection.max_repeats (10) steps need `loop_detection: false`, or they stop as a loop.
 */
export function noopScript(steps: number): ModelScriptInput {
  return {
    replies: [...Array.from({ length: steps - 1 }, () => ({ toolCalls: [{ name: 'noop', args: {} }] })), { text: 'done' }],
  };
}

export interface BenchStackOptions {
  eagerActivities: boolean;
  scripts: Record<string, ModelScriptInput>;
  /** A workflow bundle of older code, run by a second agent worker for a side-by-side comparison. */
  baselineBundlePath?: string;
  /** Also start a worker with one no-op before-tool hook, for the `hooks` section. */
  withHookedWorker?: boolean;
  /** The dev server's SQLite pragmas (default: the dev server's own, `DEFAULT_SQLITE_PRAGMAS`). */
  sqlitePragmas?: Record<string, string>;
  /** Named agents the main worker defines (the `named-agents` section). */
  agents?: AgentDefinition[];
}

export async function startBenchStack(folder: string, name: string, options: BenchStackOptions): Promise<BenchStack> {
  const server = await startDevServer({
    port: 0,
    uiPort: null,
    dbFile: path.join(folder, `${name}.db`),
    dynamicConfig: { 'system.enableActivityEagerExecution': options.eagerActivities },
    ...(options.sqlitePragmas ? { sqlitePragmas: options.sqlitePragmas } : {}),
  });
  const activityStarts = new Map<string, number>();
  const noop = defineTool({
    name: 'noop',
    description: 'Does nothing.',
    parameters: z.object({}),
    execute: (_args, context) => {
      activityStarts.set(context.workflowId, performance.now());
      return 'ok';
    },
  });
  const gates = new Map<string, () => void>();
  const gate = defineTool({
    name: 'gate',
    description: 'Waits until the bench opens it.',
    parameters: z.object({}),
    execute: (_args, context) => new Promise<string>((resolve) => gates.set(context.workflowId, () => resolve('open'))),
  });
  const big = defineTool({
    name: 'big',
    description: 'Returns 64 KB of text.',
    parameters: z.object({ part: z.number() }),
    execute: ({ part }) => `${part}`.padEnd(64 * 1024, 'x'),
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection, interceptors: { workflow: [queryQueueInterceptor()] } });
  const taskQueue = `bench-${randomUUID()}`;
  const agentWorker = (queue: string, workflowBundlePath?: string, hooks: AnyHook[] = [], telemetry?: AgentTelemetrySetup) =>
    createAgentWorker({
      hooks,
      telemetry: telemetry ?? false,
      connection,
      client,
      taskQueue: queue,
      tools: [noop, gate, big],
      artifacts: new FolderArtifactStore(path.join(folder, `${name}-artifacts`)),
      models: defaultModelRegistry(new ScriptedModel({ scripts: options.scripts, onCall: (call) => stack.onModelCall(call) })),
      ...(workflowBundlePath ? { workflowBundlePath } : { agents: options.agents ?? [] }),
    });
  const worker = await agentWorker(taskQueue);
  const codeBaselineQueue = `${taskQueue}-code-baseline`;
  const codeBaselineWorker = options.baselineBundlePath ? await agentWorker(codeBaselineQueue, options.baselineBundlePath) : null;
  const hookedQueue = `${taskQueue}-hooks`;
  const noopHook = defineHook({ name: 'noop-before-tool', point: 'before-tool', run: () => undefined });
  const hookedWorker = options.withHookedWorker ? await agentWorker(hookedQueue, undefined, [noopHook]) : null;
  // The baseline's workflows never ship in the agent bundle: a worker of their own in this process.
  const baselineTaskQueue = `${taskQueue}-baseline`;
  const baselineWorker = await Worker.create({
    connection,
    taskQueue: baselineTaskQueue,
    workflowsPath: require.resolve('./baseline'),
    activities: createBaselineActivities((workflowId) => activityStarts.set(workflowId, performance.now())),
  });
  const running = Promise.all([worker.run(), baselineWorker.run(), codeBaselineWorker?.run(), hookedWorker?.run()]);
  const stack: BenchStack = {
    server,
    worker,
    activityStarts,
    onModelCall: () => {},
    gates,
    baselineTaskQueue,
    baselineCodeAgents: codeBaselineWorker ? new AgentClient(client, { taskQueue: codeBaselineQueue }) : null,
    agents: new AgentClient(client, { taskQueue }),
    eagerAgents: new AgentClient(client, { taskQueue, eagerStart: true }),
    hookedAgents: hookedWorker ? new AgentClient(client, { taskQueue: hookedQueue }) : null,
    async addAgentWorker({ telemetry }) {
      const queue = `${taskQueue}-${randomUUID()}`;
      const added = await agentWorker(queue, undefined, [], telemetry);
      const addedRun = added.run();
      return {
        agents: new AgentClient(client, { taskQueue: queue }),
        async close() {
          added.shutdown();
          await addedRun;
        },
      };
    },
    async close() {
      worker.shutdown();
      baselineWorker.shutdown();
      codeBaselineWorker?.shutdown();
      hookedWorker?.shutdown();
      await running;
      await connection.close();
      await server.stop();
    },
  };
  return stack;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
