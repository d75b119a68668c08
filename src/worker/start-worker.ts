import { Client } from '@temporalio/client';
import { Runtime, type NativeConnection, type Worker } from '@temporalio/worker';
import { connectWorker } from '../connection/connect-worker';
import { registerSearchAttributes } from '../connection/register-search-attributes';
import type { TemporalTarget } from '../connection/temporal-target';
import type { Tool } from '../tools/define-tool';
import type { WorkerExtensions } from './load-tools';
import { readDecisionPublicKeys } from '../decisions/decision-keys';
import { createAgentWorker } from './create-worker';
import type { AgentDeploymentVersion } from './deployment-options';
import { createProcessLogger, PinoTemporalLogger } from './logger';
import { dataConverterFromEnvironment } from '../codec/encryption-codec';
import { queryQueueInterceptor } from '../connection/query-queue-interceptor';

export interface RunningWorker {
  worker: Worker;
  /** Shares the worker's connection, so runs it starts can use eager start. */
  client: Client;
  connection: NativeConnection;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/** Installs the process logger into Temporal's runtime (once per process). */
export function installRuntimeLogger(name: string): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new PinoTemporalLogger(createProcessLogger(name, process.env.LOG_LEVEL ?? 'warn')) });
  runtimeInstalled = true;
}

export interface StartWorkerOptions {
  tools: Tool[];
  /** Lifecycle hooks and instructions providers (docs/hooks.md), and agents defined in code. */
  extensions?: WorkerExtensions;
  /** A folder of agent definitions (`worker --agents`; docs/agents.md). */
  agentsFolder?: string;
  /** PEM files of the public keys verified decisions are checked with (`worker --decision-public-key`). */
  decisionPublicKeyFiles?: string[];
  /** Run no gated call whose approval was not verified (`worker --require-verified-decisions`). */
  requireVerifiedDecisions?: boolean;
  taskQueue?: string;
  /**
   * Register the search attributes first (`worker --setup`). Off by default: on a cluster that is
   * a one-time step (`durable-agents setup`); the dev server has them from its start.
   */
  registerSearchAttributes?: boolean;
  /** How long a stop lets in-flight tasks finish (see `AgentWorkerOptions.shutdownGraceMs`). */
  shutdownGraceMs?: number;
  /**
   * The Worker Deployment Version to poll as (see `AgentWorkerOptions.deployment`). Default: from
   * AGENT_DEPLOYMENT_NAME / AGENT_BUILD_ID; `false` (the embedded `demo` and `dev`): unversioned.
   */
  deployment?: AgentDeploymentVersion | false;
}

/**
 * Connects to the target and runs an agent worker until `stop()` (or SIGINT / SIGTERM, which the
 * Temporal worker handles by draining in-flight tasks for up to its shutdown grace).
 */
export async function startWorker(target: TemporalTarget, options: StartWorkerOptions): Promise<RunningWorker> {
  const dataConverter = dataConverterFromEnvironment();
  const connection = await connectWorker(target);
  const client = new Client({
    connection,
    namespace: target.namespace,
    ...(dataConverter ? { dataConverter } : {}),
    interceptors: { workflow: [queryQueueInterceptor()] },
  });
  if (options.registerSearchAttributes) await registerSearchAttributes(connection, target.namespace);
  const worker = await createAgentWorker({
    connection,
    client,
    namespace: target.namespace,
    taskQueue: options.taskQueue,
    tools: options.tools,
    dataConverter,
    shutdownGraceMs: options.shutdownGraceMs,
    ...(options.deployment !== undefined ? { deployment: options.deployment } : {}),
    ...options.extensions,
    ...(options.agentsFolder ? { agentsFolder: options.agentsFolder } : {}),
    ...(options.decisionPublicKeyFiles ? { decisionPublicKeys: readDecisionPublicKeys(options.decisionPublicKeyFiles) } : {}),
    ...(options.requireVerifiedDecisions ? { requireVerifiedDecisions: true } : {}),
  });
  const done = worker.run().finally(() => connection.close());
  return {
    worker,
    client,
    connection,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
