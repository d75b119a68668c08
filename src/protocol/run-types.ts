import type { AgentConfig } from '../config/agent-config';
import type { Message, Usage } from './messages';
import type { ProgressNote } from './activity-types';
import type { ForkOrigin, ReplaySource } from './fork-types';
import type { CallDecider } from './call-deciders';
import type { HookFailureReport } from './hook-types';
import type { CarriedState } from './carried-state';
import type { ConcurrencyCap, HeldSlot } from './concurrency-slots';
import type { PlanArtifact } from './run-status-types';

// The workflow's activity inputs and results live in activity-types.ts, what a continuation carries
// in carried-state.ts, a run's status and approvals in run-status-types.ts; they are part of this
// module's surface too.
export type * from './activity-types';
export type * from './carried-state';
export type * from './run-status-types';

/**
 * Serialisable shapes that cross the workflow boundary: run input and result, activity inputs and
 * results, the status and event views. Types only, so safe in the workflow sandbox.
 */

/** Timeouts of a run's activities, in milliseconds. Defaults suit real providers and tools. */
export interface RunTimeouts {
  /** One attempt of a model step (start to close). Default: 5 minutes. */
  modelStepMs: number;
  /** One attempt of a tool call (start to close). Default: 10 minutes. */
  toolMs: number;
  /**
   * An activity that stops heartbeating this long (its worker died) is retried elsewhere. Default:
   * 10 seconds. The runtime heartbeats model steps and tools every third of it while they run, so
   * only a dead worker (or an event loop blocked that long) misses it; see docs/durability.md.
   */
  heartbeatMs: number;
}

export const DEFAULT_TIMEOUTS: RunTimeouts = {
  modelStepMs: 5 * 60_000,
  toolMs: 10 * 60_000,
  heartbeatMs: 10_000,
};

/**
 * The input of the `agentRun` workflow as you write it, for starting a run from another Temporal
 * client (this package's `AgentClient.startRun` and `runAgent` build it for you). `config` must be
 * a validated config (`parseAgentConfig`); `task` must not be blank.
 */
export interface AgentRunInput {
  config: AgentConfig;
  task: string;
  /** Prior conversation to continue from (optional). */
  messages?: Message[];
  timeouts?: Partial<RunTimeouts>;
  /**
   * Continue as new once the history has this many events (default: when Temporal suggests it).
   * Long runs keep their history far from Temporal's limits this way.
   */
  historyEventLimit?: number;
  /** Continue as new once the history is this many bytes (default: when Temporal suggests it, about 4 MB on default servers). */
  historySizeLimitBytes?: number;
  /** Configs of the agents this run may hand off to (and theirs), by name, resolved by the client. */
  agents?: Record<string, AgentConfig>;
  /**
   * The resource the run is for (a user, a team: `user:42`): whose memory the memory tools use,
   * given to every tool as `ToolContext.resourceId`. Kept through continue-as-new and handoffs,
   * and given to sub-agents.
   */
  resourceId?: string;
  /**
   * A concurrency cap of its own (`key` a tenant or user, validated by `parseRunConcurrency`): at
   * most `limit` runs started with this key hold a slot at once on the task queue; this one waits,
   * queued, until it gets one (docs/provider-limits.md). Kept through continue-as-new and handoffs.
   */
  concurrency?: ConcurrencyCap;
}

/**
 * The `agentRun` workflow as a Temporal client sees it: an `AgentRunInput` in, an `AgentRunResult`
 * out. The type argument for starting a run by its workflow type from your own client or workflow.
 * @example
 * import { Client } from '@temporalio/client';
 * import { parseAgentConfig } from 'durable-agents';
 * import { DEFAULT_TASK_QUEUE, WireName, type AgentRunWorkflow } from 'durable-agents/workflow';
 *
 * const result = await new Client().workflow.execute<AgentRunWorkflow>(WireName.agentRunWorkflow, {
 *   workflowId: 'helper-1',
 *   taskQueue: DEFAULT_TASK_QUEUE,
 *   args: [{ config: parseAgentConfig({ name: 'helper' }), task: 'Hi' }],
 * });
 */
export type AgentRunWorkflow = (input: AgentRunInput) => Promise<AgentRunResult>;

/**
 * What the `agentRun` workflow receives: the `AgentRunInput` users write, plus the fields only the
 * runtime sets (a continuation's carried state, a fork's origin, an evaluation's recorded run).
 * One object on the wire, its extra fields optional, so an `AgentRunInput` from any client starts a
 * run and every recorded history replays. Not exported from the package's entry points.
 */
export interface AgentRunWorkflowInput extends AgentRunInput {
  /** State carried over from the previous run of a continued-as-new agent run. */
  carried?: CarriedState;
  /** Set on a fork (`AgentClient.fork`): the run and step whose conversation it continues. First execution only. */
  fork?: ForkOrigin;
  /** Set on a replay-evaluation run: the recorded run whose tool results answer its tool calls. */
  replay?: ReplaySource;
  /** The concurrency slots the run chain holds: carried through continue-as-new, released when the chain ends. */
  heldSlots?: HeldSlot[];
}

/** A transfer of the conversation from one agent to another. */
export interface HandoffRecord {
  from: string;
  to: string;
  step: number;
}

/**
 * Why a run ended. All are normal results, never failures: `completed` (a final answer),
 * `max_steps`, `context_length_exceeded`, `output_invalid` (the answer failed `output_type`),
 * `budget_limit` (the prompt stayed over the `limit:` budget after compaction), `cost_limit` (the
 * next call could pass the config's `cost_limit`, or the last one did), `loop_detected`
 * (`stopDetail` names the repeated call).
 */
export type StopReason =
  | 'completed'
  | 'max_steps'
  | 'context_length_exceeded'
  | 'output_invalid'
  | 'budget_limit'
  /** The run (thread turn, thread) would spend more than its `cost_limit` (`thread_cost_limit`). */
  | 'cost_limit'
  /** A thread turn stopped by a newer message (policy `interrupt`). */
  | 'interrupted'
  /** Loop detection stopped the run: it went on repeating a tool call (or a cycle of calls) after a nudge. */
  | 'loop_detected';

/**
 * How a tool call ended: it ran (`success` or `error`), a human rejected it or let it time out, or
 * a rule of the agent's `tool_policies` denied it (`denied`).
 */
export type ToolResultStatus = 'success' | 'error' | 'rejected' | 'timed_out' | 'denied';
/** The approval part of a tool call: `not_required` for tools outside `hitl_tools`. */
export type ApprovalStatus = 'not_required' | 'approved' | 'rejected' | 'timed_out';

/** The canonical record of one tool execution (the seeds' ToolResultMetadata). */
export interface ToolResultMetadata {
  status: ToolResultStatus;
  /** Epoch milliseconds. */
  started_at: number;
  completed_at: number;
  execution_time_ms: number;
  approval_status: ApprovalStatus;
  approval_id: string | null;
  injected_args: Record<string, unknown>;
  offloaded_artifact_id: string | null;
  /** Who decided a gated call (the decision's `decidedBy`); null when not given or not gated. */
  approval_decided_by?: string | null;
  /** Why (the decision's `reason`); null when not given or not gated. */
  approval_reason?: string | null;
  /**
   * Who decided about the call besides the model, in the order they decided: a before-tool hook
   * that did more than let it through, then the rule of `tool_policies` that matched it. A denied
   * call (`status: 'denied'`) names who denied it here. Absent when neither did anything.
   */
  decided_by?: CallDecider[];
}

/** The result of one tool call, as the run records it (and `AgentRunResult.toolResults` lists it). */
export interface ToolResult {
  callId: string;
  toolName: string;
  /** What the model sees: the tool's output, or an error it can act on. */
  content: string;
  isError: boolean;
  /** Stable code of the error, when `isError` (for example `ToolNotFoundError`). */
  errorCode?: string;
  step: number;
  metadata: ToolResultMetadata;
  /** Set in a run result when `content` was cut (the full content is in the run's history). */
  contentTruncated?: boolean;
  /** Progress the tool reported while it ran. */
  progress?: ProgressNote[];
  /** Hooks that threw in the tool's activity, and whether that failed the call (reported as events, not kept). */
  hookFailures?: Array<HookFailureReport & { outcome: 'failed' | 'ignored' }>;
}

/** What a run returns (`RunHandle.result()`, `runAgent`): the answer, why it stopped, and what it did. */
export interface AgentRunResult {
  /** The final answer; when the run stopped early, the model's last text (possibly empty). */
  output: string;
  plan?: PlanArtifact;
  /** The agent that gave the answer, and the handoffs on the way (when there were any). */
  agent?: string;
  handoffs?: HandoffRecord[];
  /** The validated structured answer, when the config has an `output_type`. */
  structuredOutput?: unknown;
  stopReason: StopReason;
  /** Why the run stopped, in words, when it is not `completed`. */
  stopDetail?: string;
  steps: number;
  usage: UsageSummary;
  /**
   * The newest tool results (at most 50, content cut at 1,000 characters): a long run's result
   * stays small. `history <run>` lists every one, from the run's history.
   */
  toolResults: ToolResult[];
  /** How many tool results the run had in all. */
  toolResultCount?: number;
}

/** Tokens and cost of one model's calls in a run. */
export interface ModelUsage extends Usage {
  /** USD of the priced calls (the worker prices each call; docs/observability.md). Absent in runs before pricing. */
  costUsd?: number;
  /** Calls whose price the worker did not know: counted, never priced at zero. */
  unpricedCalls?: number;
}

/**
 * Token usage and cost of a run: the totals, and the same per "provider:model". Sub-agents' usage
 * is added to their parent's; a continued or handed-off run carries it on. `costUsd` is a lower
 * bound when `unpricedCalls` is more than 0.
 */
export interface UsageSummary extends ModelUsage {
  byModel: Record<string, ModelUsage>;
}
