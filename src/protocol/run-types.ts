import type { AgentConfig } from '../config/agent-config';
import type { AgentReference, AgentVersionRef } from './agent-reference';
import type { Message } from './messages';
import type { ProgressNote } from './activity-types';
import type { ForkOrigin, ReplaySource } from './fork-types';
import type { HookFailureReport } from './hook-types';
import type { CarriedState } from './carried-state';
import type { ConcurrencyCap, HeldSlot } from './concurrency-slots';
import type { HandoffRecord, PlanArtifact, StopReason, UsageSummary } from './run-status-types';
import type { ToolResultMetadata } from './tool-result-metadata';

// The workflow's activity inputs and results live in activity-types.ts, what a continuation carries
// in carried-state.ts, a run's status, usage, stop reason and approvals in run-status-types.ts; they
// are part of this module's surface too. None of them imports this module: it sits above them.
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
 * client (this package's `AgentClient.startRun` and `runAgent` build it for you). Either `config`,
 * a validated config (`parseAgentConfig`), or `agent`, an agent the workers define (docs/agents.md);
 * `task` must not be blank.
 */
export interface AgentRunInput {
  /** The agent's config, inline. Absent when `agent` names one the workers define. */
  config?: AgentConfig;
  /**
   * An agent the task queue's workers define, by name: they resolve it when the run starts and
   * record the definition in its history (replay never resolves it again).
   */
  agent?: AgentReference;
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
  /** The definition a named run resolved (set by the run itself, carried through continue-as-new). */
  agentVersion?: AgentVersionRef;
  /**
   * Set on a named sub-agent of a run with a cost limit: the USD its parent may still spend. The
   * resolved definition's `cost_limit` is lowered to it (the child's cost counts in the parent's).
   */
  costCeilingUsd?: number;
  /** State carried over from the previous run of a continued-as-new agent run. */
  carried?: CarriedState;
  /** Set on a fork (`AgentClient.fork`): the run and step whose conversation it continues. First execution only. */
  fork?: ForkOrigin;
  /** Set on a replay-evaluation run: the recorded run whose tool results answer its tool calls. */
  replay?: ReplaySource;
  /** The concurrency slots the run chain holds: carried through continue-as-new, released when the chain ends. */
  heldSlots?: HeldSlot[];
}

/** A run's input once its agent is known: its config inline, or its named agent's resolved. */
export type ResolvedRunInput = AgentRunWorkflowInput & { config: AgentConfig };

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
