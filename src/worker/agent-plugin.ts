import path from 'node:path';
import { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import {
  Runtime,
  type BundleOptions,
  type BundlerPlugin,
  type ReplayWorkerOptions,
  type Worker,
  type WorkerOptions,
  type WorkerPlugin,
} from '@temporalio/worker';
import { createActivities } from '../activities';
import { RecordedRuns } from '../activities/replay-tool-call';
import { QueryConversationSource } from '../activities/conversation-source';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { FolderArtifactStore } from '../artifacts/folder-artifact-store';
import { probeArtifactStore } from '../artifacts/probe-artifact-store';
import { createReadArtifactTool, READ_ARTIFACT_TOOL } from '../artifacts/read-artifact-tool';
import { McpConnections } from '../mcp/mcp-connections';
import { createMemoryTools } from '../memory/memory-tools';
import { MemoryUnavailableError, type MemoryStore } from '../memory/memory-store';
import { FolderMemoryStore } from '../memory/folder-memory-store';
import { PriceTable } from '../models/model-prices';
import { subagentTools } from '../tools/subagent-tools';
import { ToolRegistry } from '../tools/tool-registry';
import { HookRunner } from '../hooks/hook-runner';
import { AgentRegistry } from '../agents/agent-registry';
import { loadAgentFolder } from '../agents/agent-folder';
import type { AgentDefinition } from '../agents/define-agent';
import { HookDefinitionError } from '../protocol/errors';
import { defaultModelRegistry } from './default-models';
import { assertSupportedTemporal } from './temporal-versions';
import { checkDeploymentVersion, workerDeploymentFor } from './deployment-options';
import { checkDeploymentAgents, recordDeploymentAgents } from './deployment-agent-record';
import type { AgentPluginOptions } from './agent-plugin-options';

export type { AgentPluginOptions } from './agent-plugin-options';
import { compileSourcesForTheBuildTarget, type WebpackConfig } from './source-bundle-target';
import { agentPreloadModules, agentWorkflowsPath, bundlesAgentSources, combinedWorkflowsEntry, prebuiltBundle } from './workflow-bundle';
import { toToolResolver } from '../skills/tool-resolver';

/** How often (at most) live heartbeat details reach the server, in ms (streamed text, progress). */
const DEFAULT_LIVE_UPDATE_MS = 250;

/** The plugin's data folder when none is given: under the worker's working directory. */
const DEFAULT_PLUGIN_DATA_DIR = '.temporal-data';

/**
 * A Temporal worker plugin that adds the agent runtime to your own worker: the `agentRun`
 * workflow, its activities (model steps, tools, MCP, skills), your tools and the model providers.
 * Your own workflows and activities stay as they are.
 *
 * - Without a `workflowsPath` of your own, the worker uses the bundle prebuilt at package build
 *   time (fast start, no webpack at run time) when your `@temporalio/worker` is the version that
 *   made it (`dist/workflow-bundle.json`); otherwise it bundles at start and logs why.
 * - With a `workflowsPath`, the agent workflows are bundled together with yours (the plugin is
 *   also a bundler plugin: pass it to `bundleWorkflowCode({ plugins })` to prebuild that bundle).
 * - Settings it adds only when you did not set them: heartbeat throttling of 250 ms (live text and
 *   progress). Its client for conversation reads uses the worker's data converter (set yours for
 *   payload encryption; `createAgentWorker` sets one from `AGENT_PAYLOAD_KEYS`).
 * - It reads no environment variables: what it needs comes from its options and the worker's.
 *
 * @example
 * import { NativeConnection, Worker } from '@temporalio/worker';
 * import { AgentPlugin } from 'durable-agents/worker';
 * import { lookupOrder, refund } from './tools';
 * import * as activities from './activities';
 *
 * const connection = await NativeConnection.connect({ address: 'localhost:7233' });
 * const worker = await Worker.create({
 *   connection,
 *   taskQueue: 'orders',
 *   workflowsPath: require.resolve('./workflows'), // your workflows (may run agents as children)
 *   activities,                                     // your activities
 *   plugins: [new AgentPlugin({ tools: [lookupOrder, refund] })],
 * });
 * await worker.run();
 */
export class AgentPlugin implements WorkerPlugin, BundlerPlugin {
  readonly name = 'durable-agents';
  private readonly mcp: McpConnections;
  /** The memory store the plugin made (none was given): it closes it with the worker. */
  private ownMemory: MemoryStore | undefined;
  /** The artifact store the plugin made (none was given), made once so the probed store is the one used. */
  private ownArtifacts: ArtifactStore | undefined;

  private readonly hooks: HookRunner;
  /** The agents it offers, read and validated when the plugin is made (checked against the worker's tools in configureWorker). */
  private readonly definitions: AgentDefinition[];
  /** The client of the worker it configured: it reads and writes the worker's deployment version with it. */
  private deploymentClient: Client | undefined;
  /** The deployment version whose agents were checked already (by `createAgentWorker`, before it made the worker). */
  private checkedVersion: string | undefined;

  /**
   * @throws HookDefinitionError when two hooks share a name, `hookTimeoutMs` is not positive, or a provider is not a function.
   * @throws DeploymentError when `deployment` has an empty, too long or unusable field.
   * @throws AgentDefinitionError when an agent definition (or a file of `agentsFolder`) does not validate.
   */
  constructor(private readonly options: AgentPluginOptions = {}) {
    if (options.deployment)
      checkDeploymentVersion(options.deployment, { deploymentName: 'deployment.deploymentName', buildId: 'deployment.buildId' });
    this.mcp = options.mcp ?? new McpConnections();
    this.hooks = new HookRunner(options.hooks ?? [], { timeoutMs: options.hookTimeoutMs });
    for (const [name, provider] of Object.entries(options.instructionsProviders ?? {})) {
      if (typeof provider !== 'function') throw new HookDefinitionError(`Instructions provider '${name}' must be a function`);
    }
    this.definitions = [...(options.agents ?? []), ...(options.agentsFolder ? loadAgentFolder(options.agentsFolder) : [])];
  }

  configureWorker(options: WorkerOptions): WorkerOptions {
    assertSupportedTemporal();
    const telemetry = this.options.telemetry;
    if (telemetry) options = telemetry.configureWorker(options);
    const client = this.options.client ?? this.clientOn(options);
    this.deploymentClient = client;
    const artifacts = this.artifacts();
    const tools = this.toolRegistry(artifacts, this.memory());
    // The worker does not start on an agent it could not run (a tool, provider or handoff target it lacks).
    const agents = new AgentRegistry(this.definitions, {
      tools: tools.names(),
      instructionsProviders: Object.keys(this.options.instructionsProviders ?? {}),
    });
    const agentActivities = createActivities({
      tools,
      agents,
      artifacts,
      mcp: this.mcp,
      models: this.options.models ?? defaultModelRegistry(),
      prices: new PriceTable(this.options.prices),
      conversations: new QueryConversationSource(client, artifacts),
      recordings: new RecordedRuns(client, undefined, artifacts),
      searchAttributesClient: client,
      limiterClient: client,
      threadPostClient: client,
      a2aPushClient: client,
      a2aPushKeys: this.options.a2aPushKeys ?? null,
      skillCacheDir: this.options.skillCacheDir ?? path.resolve(DEFAULT_PLUGIN_DATA_DIR, 'skill-cache', 'worker'),
      ...(this.options.skillResolver ? { skillResolver: toToolResolver(this.options.skillResolver) } : {}),
      hooks: this.hooks,
      ...(this.options.instructionsProviders ? { instructionsProviders: this.options.instructionsProviders } : {}),
      ...(telemetry ? { telemetry: telemetry.instruments } : {}),
      ...(this.options.decisionPublicKeys ? { decisionKeys: this.options.decisionPublicKeys } : {}),
      ...(this.options.requireVerifiedDecisions ? { requireVerifiedDecisions: true } : {}),
    });
    const workerDeploymentOptions = workerDeploymentFor(this.options.deployment, options.workerDeploymentOptions);
    const clashes = Object.keys(options.activities ?? {}).filter((name) => name in agentActivities);
    if (clashes.length > 0) {
      throw new Error(`Activity names taken by the durable-agents plugin: ${clashes.join(', ')}. Rename your activities with these names.`);
    }
    return {
      ...options,
      ...this.workflowSource(options),
      activities: { ...options.activities, ...agentActivities },
      ...(workerDeploymentOptions ? { workerDeploymentOptions } : {}),
      // An unversioned worker's build id names the definitions it offers (recorded per workflow task):
      // a named thread on workers that offer the same ones skips asking before each turn.
      ...(!workerDeploymentOptions && options.buildId === undefined && agents.buildId() ? { buildId: agents.buildId()! } : {}),
      // Heartbeats carry streamed model text and tool progress to clients, so they may reach the
      // server this often instead of at 80% of the heartbeat timeout.
      maxHeartbeatThrottleInterval: options.maxHeartbeatThrottleInterval ?? DEFAULT_LIVE_UPDATE_MS,
    };
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    if (this.options.telemetry) options = this.options.telemetry.configureReplayWorker(options);
    return { ...options, ...this.workflowSource(options) };
  }

  /**
   * Adds the agent workflows to a bundle made from your `workflowsPath`, and has the bundle load
   * their modules once per worker thread instead of once per workflow (see `agentPreloadModules`).
   */
  configureBundler(options: BundleOptions): BundleOptions {
    const appHook = options.webpackConfigHook;
    // From this repository's sources only (an installed package's workflows are compiled already).
    const sourceTarget = bundlesAgentSources() ? compileSourcesForTheBuildTarget : (config: WebpackConfig) => config;
    const agentsOnly = path.resolve(options.workflowsPath) === agentWorkflowsPath();
    // The combined entry lives in a temp folder with no node_modules above it: let webpack find
    // the SDK (and the app's packages) where this app has them.
    const ours = agentsOnly
      ? sourceTarget
      : (config: WebpackConfig) =>
          sourceTarget({ ...config, resolve: { ...config.resolve, modules: [...(config.resolve?.modules ?? ['node_modules']), appNodeModules()] } });
    return {
      ...options,
      preloadModules: agentPreloadModules(options.preloadModules),
      workflowsPath: agentsOnly ? options.workflowsPath : combinedWorkflowsEntry(options.workflowsPath),
      // The app's own hook runs last, on our settings, so it can change them.
      webpackConfigHook: (config) => (appHook ? appHook(ours(config)) : ours(config)),
    };
  }

  /**
   * Prepares the stores, and on a versioned worker with agents checks them against what the
   * deployment's builds recorded before it polls, then records them on its build while it runs.
   * @throws AgentDefinitionError when its agents conflict with the deployment's (see `checkAgentLabels`).
   */
  async runWorker(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
    const recording = new AbortController();
    try {
      await this.prepare();
      const deployment = worker.options.workerDeploymentOptions;
      const client = this.deploymentClient;
      if (deployment?.useWorkerVersioning && client && this.definitions.length > 0) {
        await this.checkAgentLabels(client, deployment.version);
        // In the background: the version exists on the server only once this worker has polled.
        void recordDeploymentAgents(client, deployment.version, this.definitions, recording.signal);
      }
      await next(worker);
    } finally {
      recording.abort();
      // MCP server processes end with the worker: no orphans.
      await this.mcp.closeAll();
      await this.ownMemory?.close();
    }
  }

  /**
   * Checks, before the worker polls, that the stores it needs can be reached: the memory store
   * (with PostgreSQL, its table is created on the way), and the artifact store, which must write
   * and read back a probe object. `createAgentWorker` calls it before it creates the worker, and
   * the worker again when it starts to run, so a worker whose stores are unusable refuses to start
   * rather than fail every memory call, large tool result and long-run snapshot (and retry them
   * for as long as the runs live).
   * @param options.artifactsSource Where the artifact store was chosen, named in the error
   * (`createAgentWorker` names the variable).
   * @throws MemoryUnavailableError naming the store (never its password).
   * @throws ArtifactStoreUnavailableError naming the store, what failed and the fix.
   */
  async prepare(options: { artifactsSource?: string } = {}): Promise<void> {
    try {
      await this.memory().open();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new MemoryUnavailableError(
        `The agent worker does not start: ${message}. Check the memory store given to AgentPlugin (AGENT_MEMORY_URL for createAgentWorker and the CLI's worker).`,
        { cause: error },
      );
    }
    await probeArtifactStore(
      this.artifacts(),
      options.artifactsSource ?? (this.options.artifacts ? undefined : "the plugin's default folder; pass `artifacts` for another"),
    );
  }

  /**
   * Refuses a versioned worker whose agents would make one label mean two definitions in its
   * Worker Deployment: another worker of its build recorded another version of an agent, or a
   * build recorded the same name and label with another version (docs/agents.md). Advisory (a
   * warning, then start) when the server or credential cannot describe deployments. The worker
   * calls it before it polls; `createAgentWorker` calls it before it makes the worker, and the
   * worker then does not ask again.
   * @throws AgentDefinitionError naming the agent, the label, both versions and the other build.
   */
  async checkAgentLabels(client: Client, version: WorkerDeploymentVersion): Promise<void> {
    const key = `${version.deploymentName}:${version.buildId}`;
    if (this.checkedVersion === key) return;
    await checkDeploymentAgents(client, version, this.definitions);
    this.checkedVersion = key;
  }

  /** The artifact store given, or the plugin's own folder (made once). */
  private artifacts(): ArtifactStore {
    if (this.options.artifacts) return this.options.artifacts;
    this.ownArtifacts ??= new FolderArtifactStore(path.resolve(DEFAULT_PLUGIN_DATA_DIR, 'artifacts'));
    return this.ownArtifacts;
  }

  /** The memory store given, or the plugin's own folder (made once). */
  private memory(): MemoryStore {
    if (this.options.memory) return this.options.memory;
    this.ownMemory ??= new FolderMemoryStore(path.resolve(DEFAULT_PLUGIN_DATA_DIR, 'memory'));
    return this.ownMemory;
  }

  /**
   * Yours (with ours added by `configureBundler`), or the prebuilt bundle, or ours bundled now
   * (webpack, seconds): the worker's log says why the prebuilt one could not serve.
   */
  private workflowSource(
    options: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'interceptors' | 'dataConverter'>,
  ): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
    if (options.workflowBundle || options.workflowsPath) return {};
    const prebuilt = prebuiltBundle(options);
    if ('codePath' in prebuilt) return { workflowBundle: prebuilt };
    // From the sources (this repository's CLI and demo) this is how it should be; an installed package says what to change.
    const logger = Runtime.instance().logger;
    (prebuilt.fromSources ? logger.info : logger.warn).call(
      logger,
      `durable-agents: bundling the agent workflows now (webpack, some seconds), not the prebuilt bundle: ${prebuilt.reason}`,
    );
    return { workflowsPath: agentWorkflowsPath() };
  }

  /** Your tools, plus the built-in ones (reading offloaded results, sub-agents, memory) you did not replace. */
  private toolRegistry(artifacts: ArtifactStore, memory: MemoryStore): ToolRegistry {
    const tools = new ToolRegistry(this.options.tools ?? []);
    if (!tools.has(READ_ARTIFACT_TOOL)) tools.register(createReadArtifactTool(artifacts));
    for (const tool of createMemoryTools(memory)) if (!tools.has(tool.name)) tools.register(tool);
    for (const tool of subagentTools) if (!tools.has(tool.name)) tools.register(tool);
    return tools;
  }

  private clientOn(options: WorkerOptions): Client {
    const { dataConverter } = options;
    if (!options.connection) {
      throw new Error(
        'AgentPlugin: pass `connection` (a NativeConnection) to Worker.create, or a `client` to AgentPlugin, so model steps can read their conversation.',
      );
    }
    return new Client({ connection: options.connection, namespace: options.namespace ?? 'default', ...(dataConverter ? { dataConverter } : {}) });
  }
}

/** The node_modules folder this app's Temporal SDK is installed in (a peer dependency: the app's own). */
function appNodeModules(): string {
  return path.resolve(require.resolve('@temporalio/workflow/package.json'), '..', '..', '..');
}
