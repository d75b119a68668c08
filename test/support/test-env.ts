import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { NativeConnection, type Worker, type WorkerOptions } from '@temporalio/worker';
import { AgentClient } from '../../src/client/agent-client';
import { queryQueueInterceptor } from '../../src/connection/query-queue-interceptor';
import { resolveTemporalTarget, type TemporalTarget } from '../../src/connection/temporal-target';
import { ScriptedModel, type ModelScriptInput, type ScriptedCall } from '../../src/models/scripted-model';
import type { Tool } from '../../src/tools/define-tool';
import type { AnyHook, InstructionsProvider } from '../../src/hooks/define-hook';
import type { ArtifactStore } from '../../src/artifacts/artifact-store';
import type { MemoryStore } from '../../src/memory/memory-store';
import type { ModelProvider } from '../../src/models/model-provider';
import type { ModelRegistry } from '../../src/models/model-registry';
import { McpConnections } from '../../src/mcp/mcp-connections';
import type { ModelPrices } from '../../src/protocol/model-price';
import { createAgentWorker, type AgentWorkerOptions } from '../../src/worker/create-worker';
import type { DataConverter } from '@temporalio/common';
import { dataConverterFromEnvironment } from '../../src/codec/encryption-codec';
import { defaultModelRegistry } from '../../src/worker/default-models';
import type { AgentTelemetrySetup } from '../../src/telemetry/agent-telemetry-setup';
import type { AgentDefinition } from '../../src/agents/define-agent';
import type { AgentDeploymentVersion } from '../../src/worker/deployment-options';

/**
 * A real worker and client on the test run's real Temporal server, with a scripted model whose
 * calls are recorded. Each environment has its own task queue, so test files run in parallel.
 */
export interface TestEnvironment {
  agents: AgentClient;
  client: Client;
  worker: Worker;
  taskQueue: string;
  scripted: ScriptedModel;
  /** Every model call, in order. */
  modelCalls: ScriptedCall[];
  close(): Promise<void>;
}

export interface TestEnvironmentOptions {
  tools: Tool[];
  scripts?: Record<string, ModelScriptInput>;
  workerOptions?: Partial<WorkerOptions>;
  /** Default: the test run's server. */
  target?: TemporalTarget;
  artifacts?: ArtifactStore;
  /** The memory store of agents with `memory: true` (default: from the environment, as a worker's). */
  memory?: MemoryStore;
  /** Payload codecs for the client and the worker (default: from AGENT_PAYLOAD_KEYS). */
  dataConverter?: DataConverter;
  /** Extra model providers by prefix (for example a real provider pointed at a loopback server). */
  providers?: Record<string, ModelProvider>;
  /** Model prices of the worker over the defaults (`AgentPlugin({ prices })`). */
  prices?: ModelPrices;
  /** Default: a fresh one. Give another environment's to stand in for a second machine. */
  taskQueue?: string;
  /** Interceptors of the client the worker's activities and the test share (to observe calls). */
  clientInterceptors?: WorkflowClientInterceptor[];
  /** The worker's lifecycle hooks and instructions providers (docs/hooks.md). */
  hooks?: AnyHook[];
  instructionsProviders?: Record<string, InstructionsProvider>;
  /** How the worker maps skills to tools (`AgentPlugin`'s `skillResolver`). */
  skillResolver?: AgentWorkerOptions['skillResolver'];
  /** Traces and metrics of the worker (default: none). */
  telemetry?: AgentTelemetrySetup;
  /** Named agents the worker offers (docs/agents.md). */
  agents?: AgentDefinition[];
  agentsFolder?: string;
  /** The Worker Deployment Version the worker polls as (default: an unversioned worker). */
  deployment?: AgentDeploymentVersion;
  /** The public keys the worker verifies decision proofs with (default: none). */
  decisionPublicKeys?: AgentWorkerOptions['decisionPublicKeys'];
  /** The keys A2A push configs open with (default: none, push delivery off on this worker). */
  a2aPushKeys?: AgentWorkerOptions['a2aPushKeys'];
  /** The worker runs no gated call whose approval was not verified (default: false). */
  requireVerifiedDecisions?: boolean;
}

export async function createTestEnvironment(options: TestEnvironmentOptions): Promise<TestEnvironment> {
  const target = options.target ?? resolveTemporalTarget();
  const connection = await Connection.connect(target.connectionOptions);
  const dataConverter = options.dataConverter ?? dataConverterFromEnvironment();
  const client = new Client({
    connection,
    namespace: target.namespace,
    ...(dataConverter ? { dataConverter } : {}),
    interceptors: { workflow: [queryQueueInterceptor(), ...(options.clientInterceptors ?? [])] },
  });
  const nativeConnection = await NativeConnection.connect(target.connectionOptions);
  const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
  const modelCalls: ScriptedCall[] = [];
  const mcp = new McpConnections();
  const scripted = new ScriptedModel({ scripts: options.scripts, onCall: (call) => modelCalls.push(call) });
  const worker = await createAgentWorker({
    connection: nativeConnection,
    client,
    namespace: target.namespace,
    taskQueue,
    tools: options.tools,
    models: withProviders(defaultModelRegistry(scripted), options.providers ?? {}),
    ...(options.prices ? { prices: options.prices } : {}),
    artifacts: options.artifacts,
    ...(options.memory ? { memory: options.memory } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.instructionsProviders ? { instructionsProviders: options.instructionsProviders } : {}),
    ...(options.skillResolver ? { skillResolver: options.skillResolver } : {}),
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.agentsFolder ? { agentsFolder: options.agentsFolder } : {}),
    ...(options.deployment ? { deployment: options.deployment } : {}),
    decisionPublicKeys: options.decisionPublicKeys ?? new Map(),
    a2aPushKeys: options.a2aPushKeys ?? null,
    requireVerifiedDecisions: options.requireVerifiedDecisions ?? false,
    mcp,
    dataConverter,
    telemetry: options.telemetry ?? false,
    // A test closes its worker when its assertions are done, sometimes with a call still running
    // (a cancelled run, a tool left blocked): not worth the production drain of 10 minutes.
    // Draining itself is tested with worker processes (test/worker-shutdown.test.ts).
    shutdownGraceMs: 2_000,
    workerOptions: {
      // A nondeterminism error fails the test instead of retrying the task forever.
      workflowFailureErrorTypes: { '*': ['DeterminismViolationError'] },
      ...options.workerOptions,
    },
  });
  const agents = new AgentClient(client, { taskQueue, namespace: target.namespace, uiUrl: null });
  // One worker for the whole file: a Temporal worker runs once, so it is started here and shut
  // down by close().
  const running = worker.run();
  return {
    agents,
    client,
    worker,
    taskQueue,
    scripted,
    modelCalls,
    async close() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await mcp.closeAll();
      await connection.close();
      await nativeConnection.close();
    },
  };
}

function withProviders(registry: ModelRegistry, providers: Record<string, ModelProvider>): ModelRegistry {
  for (const [prefix, provider] of Object.entries(providers)) registry.register(prefix, provider);
  return registry;
}

/** Polls `check` until it returns a truthy value, for at most `timeoutMs` (30 s unless told: room for a loaded 2-core machine). */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
}

/** Terminates the workflows a test left running (shared limiter or slots workflows), ignoring ones already closed or never started. */
export async function terminateLeftovers(agents: Pick<AgentClient, 'temporal'> | undefined, workflowIds: readonly string[]): Promise<void> {
  for (const workflowId of workflowIds) {
    await agents?.temporal.workflow
      .getHandle(workflowId)
      .terminate('test over')
      .catch(() => undefined);
  }
}
