import path from 'node:path';
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { Runtime, Worker, type NativeConnection, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { artifactStoreFromEnvironment, artifactStoreSource } from '../artifacts/artifact-store-from-environment';
import { dataConverterFromEnvironment } from '../codec/encryption-codec';
import { DEFAULT_DATA_DIR } from '../devserver/dev-server';
import type { McpConnections } from '../mcp/mcp-connections';
import type { MemoryStore } from '../memory/memory-store';
import { memoryStoreFromEnvironment } from '../memory/memory-store-from-environment';
import type { ModelRegistry } from '../models/model-registry';
import { pricesFromEnvironment } from '../models/price-file';
import type { ModelPrices } from '../protocol/model-price';
import { DEFAULT_TASK_QUEUE } from '../protocol/wire-names';
import { startAgentTelemetry, type AgentTelemetrySetup } from '../telemetry/agent-telemetry-setup';
import { telemetryOptionsFromEnvironment } from '../telemetry/telemetry-options';
import type { Tool } from '../tools/define-tool';
import type { AnyHook, InstructionsProvider } from '../hooks/define-hook';
import type { AgentDefinition } from '../agents/define-agent';
import { AgentPlugin, type AgentPluginOptions } from './agent-plugin';
import { readA2aPushKeys, type A2aPushKeys } from '../a2a-push/a2a-push-secrets';
import { readDecisionPublicKeys, REQUIRE_VERIFIED_DECISIONS_VARIABLE, type DecisionPublicKeys } from '../decisions/decision-keys';
import { deploymentVersionFromEnvironment, type AgentDeploymentVersion } from './deployment-options';
import { DEFAULT_SHUTDOWN_GRACE_MS, shutdownGraceFromEnvironment } from './shutdown-grace';

/** A connection and your tools; everything else has a default (task queue `agent-runs`, namespace `default`). */
export interface AgentWorkerOptions {
  /** The worker's connection to Temporal. */
  connection: NativeConnection;
  /** The client model steps read their run's conversation with. Default: one on `connection`. */
  client?: Client;
  /** Default: `default`. */
  namespace?: string;
  /** Default: `agent-runs`, the task queue `AgentClient` starts runs on. */
  taskQueue?: string;
  tools: Iterable<Tool>;
  /** Model providers by prefix. Default: `scripted:`, `openai:`, `anthropic:`, `openai-compatible:`. */
  models?: ModelRegistry;
  /**
   * Where large tool results and long runs' snapshots go. Default: from the environment
   * (`AGENT_ARTIFACT_STORE=s3://…`, else a folder: AGENT_ARTIFACT_DIR or .temporal-data/artifacts).
   * Either way it must write and read back a probe object before the worker is made.
   */
  artifacts?: ArtifactStore;
  /**
   * What agents with `memory: true` remember (docs/memory.md). Default: from the environment
   * (AGENT_MEMORY_URL for PostgreSQL, else a folder: AGENT_MEMORY_DIR or .temporal-data/memory),
   * closed when the worker stops.
   */
  memory?: MemoryStore;
  /** Model prices over the defaults (USD per million tokens). Default: the JSON file AGENT_MODEL_PRICES names, when set. */
  prices?: ModelPrices;
  /** Where the worker clones git skill sources. Default: AGENT_SKILL_CACHE or .temporal-data/skill-cache/worker. */
  skillCacheDir?: string;
  /** Maps skills to the tools they bring (`AgentPlugin`'s `skillResolver`). Default: a SKILL.md's `allowed-tools`. */
  skillResolver?: AgentPluginOptions['skillResolver'];
  /** Lifecycle hooks (made with `defineHook`), for every agent or the agents each names (docs/hooks.md). */
  hooks?: Iterable<AnyHook>;
  /** The time limit of a hook that sets none of its own, in milliseconds (default 30,000; docs/hooks.md). */
  hookTimeoutMs?: number;
  /** Instructions providers, by the name an agent's `instructions_provider` gives (docs/hooks.md). */
  instructionsProviders?: Readonly<Record<string, InstructionsProvider>>;
  /** Named, versioned agents this worker offers (made with `defineAgent`; docs/agents.md). */
  agents?: Iterable<AgentDefinition>;
  /** A folder of agent definitions, one YAML or JSON file each (docs/agents.md). */
  agentsFolder?: string;
  /**
   * The public keys verified decisions are checked with (AgentPlugin's `decisionPublicKeys`).
   * Default: the PEM files `DURABLE_AGENTS_DECISION_PUBLIC_KEYS` lists (comma-separated), else none.
   */
  decisionPublicKeys?: DecisionPublicKeys;
  /** The keys A2A push configs' secrets open with (AgentPlugin's `a2aPushKeys`). Default: `DURABLE_AGENTS_A2A_PUSH_KEY`, else none. */
  a2aPushKeys?: A2aPushKeys | null;
  /**
   * Run no gated call whose approval was not verified (AgentPlugin's `requireVerifiedDecisions`).
   * Default: true when `DURABLE_AGENTS_REQUIRE_VERIFIED_DECISIONS` is `1` or `true`, else false.
   */
  requireVerifiedDecisions?: boolean;
  /** A workflow bundle to use instead of the package's prebuilt one. Default: AGENT_WORKFLOW_BUNDLE when set. */
  workflowBundlePath?: string;
  /**
   * Traces and metrics (docs/observability.md). Default: from the standard OpenTelemetry variables
   * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_PROMETHEUS_PORT, ...: `telemetryOptionsFromEnvironment`),
   * started here and shut down with the worker; none when they are unset. `false`: none at all.
   */
  telemetry?: AgentTelemetrySetup | false;
  /** @internal MCP clients (one per server, reused); closed when the worker stops. */
  mcp?: McpConnections;
  /**
   * Payload encryption; it must match the clients'. Default: from AGENT_PAYLOAD_KEYS, like
   * `AgentClient.connect`.
   */
  dataConverter?: DataConverter;
  /**
   * How long (ms) a stopping worker (SIGINT / SIGTERM, `worker.shutdown()`) lets its in-flight
   * model steps and tool calls finish before it cancels them; a cancelled one is retried on
   * another worker, never recorded as failed. Default: `AGENT_WORKER_SHUTDOWN_GRACE` (a duration
   * such as `10m`), else 10 minutes (a tool's default timeout). Keep your supervisor's kill delay
   * (compose's `stop_grace_period`, Kubernetes' `terminationGracePeriodSeconds`) above it.
   */
  shutdownGraceMs?: number;
  /**
   * The Worker Deployment Version this worker polls as (runs are pinned to the build that started
   * them; docs/deployment.md). Default: `AGENT_DEPLOYMENT_NAME` and `AGENT_BUILD_ID` when set
   * (both or neither); `false`: an unversioned worker whatever the environment says.
   */
  deployment?: AgentDeploymentVersion | false;
  /**
   * Anything else of Temporal's WorkerOptions (for example `maxCachedWorkflows`, which defaults to
   * AGENT_MAX_CACHED_WORKFLOWS when set, and `maxHeartbeatThrottleInterval`, which defaults to
   * AGENT_LIVE_UPDATE_MS when set, else 250 ms).
   */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * An all-in-one agent worker: the agent workflows (prebuilt bundle), their activities, your tools
 * and the model providers. Tools, model providers and API keys live here and only here. Refuses
 * to start when the memory store cannot be reached (MemoryUnavailableError) or the artifact store
 * cannot write and read back (ArtifactStoreUnavailableError). To add
 * agents to a worker that has workflows of its own, use {@link AgentPlugin} instead.
 *
 * The convenience path (the CLI's `worker` uses it): what you do not pass comes from the
 * environment, as docs/deployment.md lists: `AGENT_PAYLOAD_KEYS` (payload encryption),
 * `AGENT_ARTIFACT_STORE` / `AGENT_ARTIFACT_DIR`, `AGENT_MEMORY_URL` / `AGENT_MEMORY_DIR`,
 * `AGENT_SKILL_CACHE`, `AGENT_WORKFLOW_BUNDLE`, `AGENT_MAX_CACHED_WORKFLOWS`, `AGENT_WORKER_SHUTDOWN_GRACE`,
 * `AGENT_LIVE_UPDATE_MS`, `AGENT_MODEL_PRICES`, `AGENT_DEPLOYMENT_NAME` / `AGENT_BUILD_ID`,
 * `DURABLE_AGENTS_DECISION_PUBLIC_KEYS`, `DURABLE_AGENTS_REQUIRE_VERIFIED_DECISIONS`. `AgentPlugin` itself reads none of them.
 * @throws DeploymentError (before connecting anything) when only one of `AGENT_DEPLOYMENT_NAME`
 * and `AGENT_BUILD_ID` is set, naming the missing one.
 * @throws AgentDefinitionError when a versioned worker's agents conflict with what its Worker
 * Deployment's builds recorded (another version under the same label, or another worker of the
 * build offering another version; docs/agents.md), before the worker is made.
 * @example
 * import { NativeConnection } from '@temporalio/worker';
 * import { createAgentWorker } from 'durable-agents/worker';
 * import { tools } from './tools';
 *
 * const connection = await NativeConnection.connect({ address: 'localhost:7233' });
 * const worker = await createAgentWorker({ connection, tools });
 * await worker.run(); // until SIGINT / SIGTERM, which drain in-flight tasks (up to 10 minutes)
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const environment = process.env;
  // First: a half-set version is a configuration error, found before any store is opened.
  const deployment = options.deployment === undefined ? deploymentVersionFromEnvironment(environment) : options.deployment || undefined;
  const dataConverter = options.dataConverter ?? dataConverterFromEnvironment(environment);
  const memory = options.memory ?? memoryStoreFromEnvironment(environment);
  const telemetryOptions = options.telemetry === undefined ? telemetryOptionsFromEnvironment(environment) : null;
  const ownTelemetry = telemetryOptions ? await startAgentTelemetry(telemetryOptions) : undefined;
  const telemetry = ownTelemetry ?? (options.telemetry || undefined);
  const plugin = new AgentPlugin({
    ...(telemetry ? { telemetry } : {}),
    tools: options.tools,
    artifacts: options.artifacts ?? artifactStoreFromEnvironment(environment),
    prices: options.prices ?? pricesFromEnvironment(environment),
    skillCacheDir: options.skillCacheDir ?? environment.AGENT_SKILL_CACHE ?? path.join(DEFAULT_DATA_DIR, 'skill-cache', 'worker'),
    ...(options.models ? { models: options.models } : {}),
    ...(options.client ? { client: options.client } : {}),
    ...(options.mcp ? { mcp: options.mcp } : {}),
    memory,
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.hookTimeoutMs !== undefined ? { hookTimeoutMs: options.hookTimeoutMs } : {}),
    ...(options.instructionsProviders ? { instructionsProviders: options.instructionsProviders } : {}),
    ...(options.skillResolver ? { skillResolver: options.skillResolver } : {}),
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.agentsFolder ? { agentsFolder: options.agentsFolder } : {}),
    ...(deployment ? { deployment } : {}),
    decisionPublicKeys: options.decisionPublicKeys ?? readDecisionPublicKeys(undefined, environment),
    a2aPushKeys: options.a2aPushKeys === undefined ? readA2aPushKeys(undefined, environment) : options.a2aPushKeys,
    requireVerifiedDecisions: options.requireVerifiedDecisions ?? ['1', 'true'].includes(environment[REQUIRE_VERIFIED_DECISIONS_VARIABLE] ?? ''),
  });
  // A memory store that cannot be reached, or an artifact store that cannot write and read back,
  // stops the worker here, before it exists.
  await plugin.prepare({ artifactsSource: options.artifacts ? undefined : artifactStoreSource(environment) });
  // Agents that would make one label mean two definitions in the deployment stop the worker here,
  // before it exists (a worker refused later, when it runs, would hold its connection).
  if (deployment && (options.agents || options.agentsFolder)) {
    const namespace = options.namespace ?? 'default';
    await plugin.checkAgentLabels(options.client ?? new Client({ connection: options.connection, namespace }), deployment);
  }
  const workflowBundlePath = options.workflowBundlePath ?? bundleFromEnvironment(environment, telemetry);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    ...(workflowBundlePath ? { workflowBundle: { codePath: workflowBundlePath } } : {}),
    ...(dataConverter ? { dataConverter } : {}),
    // Parked runs (approvals, long waits) stay in this cache until evicted; a smaller cache trades
    // replay time for memory (docs/performance.md).
    ...(environment.AGENT_MAX_CACHED_WORKFLOWS ? { maxCachedWorkflows: Number(environment.AGENT_MAX_CACHED_WORKFLOWS) } : {}),
    ...(environment.AGENT_LIVE_UPDATE_MS ? { maxHeartbeatThrottleInterval: Number(environment.AGENT_LIVE_UPDATE_MS) } : {}),
    // The SDK's default is 0: a stop would cancel every running tool at once.
    shutdownGraceTime: options.shutdownGraceMs ?? shutdownGraceFromEnvironment() ?? DEFAULT_SHUTDOWN_GRACE_MS,
    ...options.workerOptions,
    plugins: [
      plugin,
      ...(options.memory ? [] : [closingWithWorker(memory)]),
      ...(ownTelemetry ? [closingWithWorker(ownTelemetry)] : []),
      ...(options.workerOptions?.plugins ?? []),
    ],
  });
}

/**
 * AGENT_WORKFLOW_BUNDLE, unless the worker traces: a bundle made beforehand lacks the tracing
 * workflow interceptors (Temporal would ignore them, and runs would have no workflow spans), so the
 * worker bundles at start and says why. A bundle passed as `workflowBundlePath` is used as given.
 */
function bundleFromEnvironment(environment: NodeJS.ProcessEnv, telemetry: AgentTelemetrySetup | undefined): string | undefined {
  const bundle = environment.AGENT_WORKFLOW_BUNDLE;
  if (!bundle || !telemetry) return bundle || undefined;
  Runtime.instance().logger.warn(
    `durable-agents: not using AGENT_WORKFLOW_BUNDLE (${bundle}): the worker traces, and a bundle made beforehand lacks the tracing workflow interceptors; bundling at start instead`,
  );
  return undefined;
}

/** Closes what was made here from the environment (the memory store, the telemetry) when the worker stops: the plugin closes only what it made. */
function closingWithWorker(made: MemoryStore | AgentTelemetrySetup): WorkerPlugin {
  return {
    name: 'instruments' in made ? 'durable-agents-environment-telemetry' : 'durable-agents-environment-memory',
    async runWorker(worker, next) {
      try {
        await next(worker);
      } finally {
        await ('instruments' in made ? made.shutdown() : made.close());
      }
    },
  };
}
