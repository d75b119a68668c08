/**
 * `durable-agents/worker`: the worker side. A Temporal worker plugin that adds agents to your own
 * worker, an all-in-one agent worker, the model provider interface, the scripted model for tests,
 * and search-attribute registration. Tools, model providers and API keys live on workers only.
 *
 * @example
 * import { NativeConnection, Worker } from '@temporalio/worker';
 * import { AgentPlugin } from 'durable-agents/worker';
 * import { tools } from './tools';
 *
 * const connection = await NativeConnection.connect({ address: 'localhost:7233' });
 * const worker = await Worker.create({ connection, taskQueue: 'agent-runs', plugins: [new AgentPlugin({ tools })] });
 * await worker.run();
 *
 * @packageDocumentation
 */

export { AgentPlugin } from './agent-plugin';
export type { AgentPluginOptions } from './agent-plugin';
export { createAgentWorker } from './create-worker';
export type { AgentWorkerOptions } from './create-worker';
export { agentWorkerDeploymentOptions, deploymentVersionFromEnvironment } from './deployment-options';
export type { AgentDeploymentVersion } from './deployment-options';
export { registerSearchAttributes } from '../connection/register-search-attributes';
export { dataConverterFromEnvironment } from '../codec/encryption-codec';
export { SUPPORTED_TEMPORAL_RANGE } from './temporal-versions';
export { readDecisionPublicKeys } from '../decisions/decision-keys';
export type { DecisionPublicKeys } from '../decisions/decision-keys';
export { readA2aPushKeys } from '../a2a-push/a2a-push-secrets';
export type { A2aPushKeys } from '../a2a-push/a2a-push-secrets';
export { startAgentTelemetry } from '../telemetry/agent-telemetry-setup';
export type { AgentTelemetrySetup } from '../telemetry/agent-telemetry-setup';
export { telemetryOptionsFromEnvironment } from '../telemetry/telemetry-options';
export type { AgentTelemetryOptions } from '../telemetry/telemetry-options';

// Models
export { ModelError } from '../models/model-provider';
export type { ModelProvider, ModelRequest, ModelResponse } from '../models/model-provider';
export { ModelRegistry } from '../models/model-registry';
export { defaultModelRegistry } from './default-models';
export { DEFAULT_MODEL_PRICES, PriceTable } from '../models/model-prices';
export { loadPriceFile } from '../models/price-file';
export type { ModelPrice, ModelPrices } from '../protocol/model-price';
export { ScriptedModel, loadModelScript, modelScriptSchema } from '../models/scripted-model';
export type { ModelScript, ModelScriptInput, ScriptedCall, ScriptedModelOptions, ScriptedReply } from '../models/scripted-model';

// Artifacts (large tool results)
export { FolderArtifactStore } from '../artifacts/folder-artifact-store';
export { S3ArtifactStore } from '../artifacts/s3-artifact-store';
export type { S3ArtifactStoreOptions } from '../artifacts/s3-artifact-store';
export { artifactStoreFromEnvironment } from '../artifacts/artifact-store-from-environment';
export { ArtifactNotFoundError } from '../artifacts/artifact-store';
export { ArtifactStoreUnavailableError, probeArtifactStore } from '../artifacts/probe-artifact-store';
export type { ArtifactStore } from '../artifacts/artifact-store';

// Memory across runs (agents with `memory: true`)
export { FolderMemoryStore } from '../memory/folder-memory-store';
export { PostgresMemoryStore } from '../memory/postgres-memory-store';
export type { PostgresMemoryStoreOptions } from '../memory/postgres-memory-store';
export { memoryStoreFromEnvironment } from '../memory/memory-store-from-environment';
export { MEMORY_LIMITS, MemoryInputError, MemoryUnavailableError } from '../memory/memory-store';
export type { ForgetRequest, MemoryEntry, MemorySource, MemoryStore, RecallQuery, RememberRequest } from '../memory/memory-store';
export { createMemoryTools } from '../memory/memory-tools';
export { forgetResource } from '../memory/forget-resource';
export type {
  ForgetResourceOptions,
  ForgetResourceReport,
  ResourceStores,
  ResourceThreadStore,
  ResourceThreadsDeleted,
} from '../memory/forget-resource';

// Lifecycle hooks and instructions providers (docs/hooks.md)
export { defineHook } from '../hooks/define-hook';
export type { AnyHook, Hook, HookDefinition, InstructionsContext, InstructionsProvider } from '../hooks/define-hook';
export type { HookEventBase, HookEvents, HookResults, ToolCallVerdict } from '../hooks/hook-events';
export { HOOK_POINTS } from '../protocol/hook-types';
export type { HookPoint } from '../protocol/hook-types';
export { HookDefinitionError } from '../protocol/errors';

// Named, versioned agents the worker offers (docs/agents.md)
export { defineAgent, OVERRIDABLE_FIELDS } from '../agents/define-agent';
export type { AgentDefinition, AgentDefinitionInput, OverridableField } from '../agents/define-agent';
export { loadAgentFolder } from '../agents/agent-folder';
export { AgentDefinitionError } from '../agents/agent-definition-error';

// Tools (also exported by 'durable-agents', for tool modules that import only this entry)
export { defineTool, RetryableToolError } from '../tools/define-tool';
export type { Tool, ToolContext, ToolDefinition } from '../tools/define-tool';
