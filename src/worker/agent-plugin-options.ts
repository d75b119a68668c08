// The options of `AgentPlugin` (re-exported by agent-plugin.ts): what the plugin adds to a worker.
import type { Client } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts/artifact-store';
import type { AnyHook, InstructionsProvider } from '../hooks/define-hook';
import type { McpConnections } from '../mcp/mcp-connections';
import type { MemoryStore } from '../memory/memory-store';
import type { ModelRegistry } from '../models/model-registry';
import type { ModelPrices } from '../protocol/model-price';
import type { AgentTelemetrySetup } from '../telemetry/agent-telemetry-setup';
import type { Tool } from '../tools/define-tool';
import type { AgentDefinition } from '../agents/define-agent';
import type { AgentDeploymentVersion } from './deployment-options';
import type { ToolResolver } from '../skills/tool-resolver';
import type { DecisionPublicKeys } from '../decisions/decision-keys';
import type { A2aPushKeys } from '../a2a-push/a2a-push-secrets';

/**
 * What `AgentPlugin` adds to a worker: your tools, and optionally other model providers, an
 * artifact store, a skill cache folder. Everything is explicit: the plugin reads no environment
 * variables (`createAgentWorker` and the CLI's `worker` do, and pass what they read here).
 */
export interface AgentPluginOptions {
  /** The tools agents on this worker may call (made with `defineTool`). */
  tools?: Iterable<Tool>;
  /**
   * Model providers by prefix. Default: `scripted:`, `openai:`, `anthropic:`, `openai-compatible:`
   * (the real providers read their API key variables when a step runs).
   */
  models?: ModelRegistry;
  /**
   * Where large tool results and long runs' conversation snapshots go. Default: the folder
   * `.temporal-data/artifacts` under the working directory, which serves one machine; workers on
   * several machines need a shared store (`S3ArtifactStore`, or `artifactStoreFromEnvironment()`).
   * The worker does not start when it cannot write and read back a probe object.
   */
  artifacts?: ArtifactStore;
  /**
   * Model prices (USD per million tokens) over `DEFAULT_MODEL_PRICES`, by "provider:model" or a
   * "provider:prefix*" key: each model call is priced on the worker (docs/observability.md).
   */
  prices?: ModelPrices;
  /** Where the worker clones git skill sources. Default: `.temporal-data/skill-cache/worker` under the working directory. */
  skillCacheDir?: string;
  /**
   * Maps skills to the tools they bring, when a run loads its skill sources (docs/skills.md): a
   * `ToolResolver` or a record of skill name to tool name(s). Default: a SKILL.md's `allowed-tools`.
   * Use the same as the watcher process's `SkillSyncManager` `toolResolver`.
   */
  skillResolver?: ToolResolver | Record<string, string | string[]>;
  /**
   * What agents with `memory: true` remember across runs (docs/memory.md). Default: the folder
   * `.temporal-data/memory` under the working directory, which serves one machine; workers on
   * several machines share a `PostgresMemoryStore` (or `memoryStoreFromEnvironment()`). The worker
   * does not start when it cannot be reached.
   */
  memory?: MemoryStore;
  /**
   * The client model steps read their run's conversation with. Default: one on the worker's own
   * connection, namespace and data converter.
   */
  client?: Client;
  /**
   * Lifecycle hooks (made with `defineHook`), run in order at their points for every agent or the
   * agents each names (docs/hooks.md). Give every worker of a task queue the same hooks.
   */
  hooks?: Iterable<AnyHook>;
  /**
   * The time limit of a hook that sets no `timeoutMs` of its own, in milliseconds. Default: 30,000
   * (`DEFAULT_HOOK_TIMEOUT_MS`). A hook over it is a hook failure, handled by the agent's `hook_errors`.
   */
  hookTimeoutMs?: number;
  /**
   * Named, versioned agents this worker offers (made with `defineAgent`; docs/agents.md). The
   * worker refuses to start when one names a tool, instructions provider or handoff target it lacks.
   */
  agents?: Iterable<AgentDefinition>;
  /** A folder of agent definitions, one YAML or JSON file each (`loadAgentFolder`), offered besides `agents`. */
  agentsFolder?: string;
  /** Instructions providers, by the name an agent's `instructions_provider` gives (docs/hooks.md). */
  instructionsProviders?: Readonly<Record<string, InstructionsProvider>>;
  /**
   * Traces and metrics (docs/observability.md), from `startAgentTelemetry`: `invoke_agent`,
   * `chat {model}` and `execute_tool {name}` spans with Temporal's own, the GenAI metrics and the
   * runtime's. Default: none, and no OpenTelemetry code is loaded. The worker then bundles its
   * workflows at start (the tracing interceptors are not in the prebuilt bundle). You shut it down.
   */
  telemetry?: AgentTelemetrySetup;
  /**
   * The Worker Deployment Version the worker polls as (docs/deployment.md, "Upgrading workers while
   * runs wait"). With it, the worker uses Worker Versioning and pins workflows to their build by
   * default: an agent run finishes on the build that started it (approvals and sub-agents
   * included), threads, provider limiters and concurrency slots move to a new current build by
   * continue-as-new at a safe point. Default: none, an unversioned worker. (Or set the worker's
   * own `workerDeploymentOptions`, with `defaultVersioningBehavior: 'PINNED'`.)
   */
  deployment?: AgentDeploymentVersion;
  /**
   * The public keys decision proofs are verified with, by key id (`readDecisionPublicKeys`), for
   * agents with `require_verified_decisions` (docs/hitl.md, "Verified decisions"). Only public
   * keys: the private halves stay with the gateway, the console or your own server. Give every
   * worker of a task queue the same keys. Default: none (every proof is refused).
   */
  decisionPublicKeys?: DecisionPublicKeys;
  /**
   * The deployment requires verified decisions: this worker runs no gated call whose approval was
   * not verified (an agent without `require_verified_decisions`); such a call ends as a
   * `DecisionUnverified` error result the model sees, and the tool does not run. Give the agents
   * `require_verified_decisions: true` so their runs refuse unverified decisions and keep waiting
   * instead (docs/hitl.md). Default: false.
   */
  requireVerifiedDecisions?: boolean;
  /**
   * The keys that open A2A push configs' secrets (`readA2aPushKeys`): the same as the gateways'
   * (docs/interop.md, "Push notifications"). Without them this worker delivers no push
   * notification (another worker of the queue that has them does). Default: none.
   */
  a2aPushKeys?: A2aPushKeys | null;
  /** @internal MCP clients (one per server, reused); closed when the worker stops. */
  mcp?: McpConnections;
}
