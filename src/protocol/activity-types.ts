import type { McpServerConfig } from '../config/agent-config';
import type { ConversationBase } from './conversation-base';
import type { AssistantMessage, JsonSchema, Message, ToolCall, ToolSpec, Usage } from './messages';
import type { ModelPrice } from './model-price';
import type { HookContext, ModelStepHookReport, ModelStepHooks } from './hook-types';
import type { BilledCall } from './model-step-state';

/**
 * What crosses between the agent workflow and its activities: conversation references and
 * slices, model step, compaction, tool and MCP inputs and results. Types only (sandbox-safe);
 * run-types.ts re-exports them.
 */

/**
 * How a model step names the conversation it needs without carrying it: the first `count`
 * messages of conversation `epoch`. A worker that already holds the earlier messages (it ran the
 * run's previous step) takes the newest ones from `recent`; any other resolves them through the
 * `conversation` query on the run.
 */
export interface ConversationRef {
  /** The executor's conversation, or the planner's own transcript. Default: executor. */
  thread?: ConversationThread;
  epoch: number;
  count: number;
  /**
   * Changes whenever the conversation changes other than by appending within its epoch (a new
   * system prompt, a rewritten message): a cached copy of another revision is stale. Absent in
   * inputs recorded before it existed.
   */
  revision?: number;
  /** The system prompt, in the first reference of each revision when it is not long. */
  system?: string;
  /**
   * Messages `count - recent.length` .. `count`: those added since the previous reference, when
   * they are small (a few KiB), so that the history stays O(1) per step. Absent otherwise.
   */
  recent?: Message[];
}

export type ConversationThread = 'executor' | 'planner';

/** What a model call is for: the scripted model keeps a separate script for each. */
export type ModelPurpose = 'executor' | 'planner' | 'compaction';

/** Budget awareness as a model step applies it. */
export interface StepBudget {
  mode: 'per-message' | 'limit';
  /** For `limit`: the share of the window the prompt may use, 0-100. */
  limitPercent: number | null;
  contextWindow: number;
}

export interface ModelStepInput {
  conversation: ConversationRef;
  /** "provider:model" */
  model: string;
  temperature: number;
  maxTokens: number | null;
  toolNames: string[];
  /** The config's injected tool args: merged into every tool schema the model sees. */
  injectedToolArgs: Record<string, string>;
  /** Tools the workflow itself provides (handoffs), given to the model as they are. */
  extraToolSpecs?: ToolSpec[];
  /** Agents a `spawn_subagents` job may name (the config's `subagents`): the tool's schema lists them. Absent: none. */
  subagentChoices?: string[];
  outputSchema: JsonSchema | null;
  step: number;
  purpose?: ModelPurpose;
  budget?: StepBudget | null;
  /** Set by the run on every try: it retries the provider's failures itself (src/protocol/workflow-retries.ts). */
  workflowRetries?: WorkflowRetriesInput;
  /** Set when the call went through a provider limiter: a 429 goes back to the run (which pauses the limiter), not to a retry of its own. */
  providerLimited?: boolean;
  /** The agent config's price of `model` (its `pricing`), over the worker's table. Absent: the worker's. */
  price?: ModelPrice;
  /**
   * Set when a cost limit applies: the USD the run may still spend. The step refuses the call
   * (`overCostLimit`) when its worst case (the prompt's tokens at the input price plus `maxTokens`
   * at the output price) is more, or when the model has no price.
   */
  costLimit?: { remainingUsd: number };
  /** Whose run this is, for the worker's hooks (src/protocol/hook-types.ts); absent in inputs recorded before hooks. */
  hooks?: ModelStepHooks;
  /**
   * The loop-detection nudge the run added to the conversation after the previous step's results
   * (docs/loop-detection.md): the step reads it with the conversation; it is here so that the
   * run's history shows it (`history`), as no activity records it otherwise.
   */
  loopNudge?: string;
}

/**
 * In an activity's input when the workflow retries the activity's own failures: the activity then
 * fails non-retryably with `RetryableFailureDetails`, and counts its attempts from `attemptsBefore`.
 */
export interface WorkflowRetriesInput {
  attemptsBefore: number;
}

export interface ModelStepResult {
  message: AssistantMessage;
  usage: Usage;
  model: string;
  /** Tokens of the prompt this step sent (counted when budget awareness is on). */
  promptTokens?: number;
  /** Set (and no model was called) when the prompt exceeds the `limit` budget. */
  overBudget?: { promptTokens: number; limitTokens: number };
  /** Set when an `outputSchema` was given and the reply is a final answer. */
  structuredOutput?: unknown;
  outputError?: string;
  /** The step's tools that sub-agents may not be given (declared `childSafe: false` on the worker). */
  childUnsafeTools?: string[];
  /**
   * The worker's description of each tool the reply calls (what the model read), for the approval
   * requests of gated calls (`ApprovalRequest.toolDescription`). Absent: no call, or none described.
   */
  toolDescriptions?: Record<string, string>;
  /**
   * What the call cost in USD, priced by the worker (so replay needs no price table): null when the
   * model's price is unknown; 0 when no model was called. Absent in steps of workers before pricing.
   */
  costUsd?: number | null;
  /** Set (and no model was called) when the call's worst case is more than `costLimit.remainingUsd`, or the model has no price. */
  overCostLimit?: { worstCaseUsd: number; remainingUsd: number; promptTokens: number; maxOutputTokens: number; unpriced?: true };
  /** Set when the worker has hooks for the agent: their points, before-tool decisions, ignored failures. */
  hooks?: ModelStepHookReport;
  /**
   * Calls the provider answered (and billed) in earlier attempts of this step that were lost
   * before they returned (a dead worker, a timeout): the run counts them with `usage`. Absent: none.
   */
  lostCalls?: BilledCall[];
}

/** Summarises the older part of a conversation so it fits the budget again. */
export interface CompactionInput {
  conversation: ConversationRef;
  model: string;
  /** Messages before this index (after the task) are summarised; the rest is kept. */
  keepFrom: number;
  /** Index of the task message, which is always kept. */
  taskIndex: number;
  sequence: number;
  workflowRetries?: WorkflowRetriesInput;
  /** As `ModelStepInput.providerLimited`: a 429 goes back to the run, which pauses its limiter. */
  providerLimited?: boolean;
  /** As `ModelStepInput.price`. */
  price?: ModelPrice;
}

export interface CompactionResult {
  summary: string;
  usage: Usage;
  /** As `ModelStepResult.costUsd`. */
  costUsd?: number | null;
}

export interface McpToolListing {
  tools: Array<ToolSpec & { server: string; mcpName: string }>;
  unavailable: Array<{ server: string; error: string }>;
}

export interface McpToolCallInput {
  server: McpServerConfig;
  /** The tool's own name on its server. */
  mcpName: string;
  call: ToolCall;
  step: number;
  injectedArgNames: string[];
  approvalId?: string;
  /** Set when the approval was verified (`require_verified_decisions`): workers requiring verified decisions run no other approved call. */
  approvalVerified?: true;
  /** Set when the agent has emit_mcp_progress: false: progress is not shown live either. */
  quietProgress?: true;
  /** Set when the worker has after-tool or error hooks for the agent. */
  hooks?: HookContext;
}

/** A progress notification a tool reported while it ran (MCP progress). */
export interface ProgressNote {
  progress: number;
  total?: number;
  message?: string;
}

export interface RunToolInput {
  call: ToolCall;
  step: number;
  /** Argument names that are injected (schema-only): split off, never passed to the tool. */
  injectedArgNames: string[];
  /** Set for a gated call that a human approved. */
  approvalId?: string;
  /** Set when the approval was verified (`require_verified_decisions`): workers requiring verified decisions run no other approved call. */
  approvalVerified?: true;
  /** Results longer than this many characters are offloaded to the artifact store. */
  offloadThreshold?: number;
  /** Set when the agent has emit_mcp_progress: false: progress is not shown live either. */
  quietProgress?: true;
  workflowRetries?: WorkflowRetriesInput;
  /**
   * The same for every try of this call, across worker deaths and continue-as-new (workflow id,
   * the chain's first run id, the call's activity id). Absent (a direct call): made by the activity.
   */
  idempotencyKey?: string;
  /** The run's resource id (`AgentRunInput.resourceId`), when it has one. */
  resourceId?: string;
  /** Set when the worker has after-tool or error hooks for the agent. */
  hooks?: HookContext;
}

/** The reply of the `conversation` query. */
export interface ConversationSlice {
  epoch: number;
  /** The conversation's current revision (see `ConversationRef.revision`). */
  revision?: number;
  system: string;
  /** Messages `from` .. `count` (exclusive), or the first of them when they are many (ask again from where they end). */
  from: number;
  messages: Message[];
  /** Set instead of messages when `from` is in the snapshot the run continued from: read it there. */
  base?: ConversationBase;
}

/** A tool call of a replay-evaluation run, to answer from the recorded run (`occurrence`: the nth call with this tool and arguments). */
export interface ReplayToolCallInput {
  source: { workflowId: string; runId: string };
  call: ToolCall;
  step: number;
  occurrence: number;
}

/**
 * What `runAgent` asks the worker before it starts an agent run from your workflow (a local
 * activity): whether the namespace has these search attributes. `missing` is the server's words
 * naming one it lacks, or null when it has them all, or when the worker could not tell (then the
 * start goes ahead, and the server decides).
 */
export interface SearchAttributesCheck {
  missing: string | null;
}
