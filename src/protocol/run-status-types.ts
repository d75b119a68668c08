// What a run reports about itself: its phase and status (the `status` query), usage, stop reason, plan, handoffs and approvals.
import type { CallDecider } from './call-deciders';
import type { Usage } from './messages';
import type { HookPoint } from './hook-types';
import type { AgentVersionRef } from './agent-reference';

/** What a run is doing: its phase in `RunStatus` and `status-changed` events. */
export type RunPhase =
  'starting' | 'planning' | 'model' | 'tools' | 'compacting' | 'completed' | 'failed' | 'idle' | 'provider_limit' | 'concurrency_slot';

/** A run waiting for a slot of a concurrency cap (phase `concurrency_slot`): which cap, and since when. */
export interface ConcurrencySlotWait {
  key: string;
  limit: number;
  /** When the wait began: epoch milliseconds (workflow clock), not a duration (`status --json` adds `waitedMs`). */
  sinceMs: number;
}

/** A model call waiting for its provider limit (docs/provider-limits.md): since when, and until when once granted. */
export interface ProviderLimitWait {
  model: string;
  /** When the wait began: epoch milliseconds (workflow clock), not a duration (`status --json` adds `waitedMs`). */
  sinceMs: number;
  /** When the call may go, epoch milliseconds, once the limiter granted it; null before. */
  untilMs: number | null;
}

/** The planner's output: the final plan text and its numbered steps. */
export interface PlanArtifact {
  text: string;
  steps: string[];
  model: string;
  plannerSteps: number;
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

/** The reply of the `status` query (`RunHandle.status()`): a run's state right now. */
export interface RunStatus {
  phase: RunPhase;
  /** The named agent's definition the run (or the thread's current turn) answers with; absent for an inline config. */
  agentVersion?: AgentVersionRef;
  /** The run's step, counted across handoffs and continuations. */
  step: number;
  /**
   * The last step the current agent may take: its `max_steps` after the steps of the agents
   * before it (`stepBase`), so `step` of `maxSteps` never reads "step 4 of 3" after a handoff.
   */
  maxSteps: number;
  /** Steps taken before the current agent took over (set after a handoff). */
  stepBase?: number;
  activeTools: string[];
  runningTools: string[];
  usage: UsageSummary;
  messageCount: number;
  stopReason: StopReason | null;
  /** Gated tool calls waiting for a human decision. */
  pendingApprovals: ApprovalRequest[];
  plan: PlanArtifact | null;
  /** The last model step's prompt size against the window (budget awareness on). */
  budget: { promptTokens: number; contextWindow: number } | null;
  /** Injected messages waiting for the next model call. */
  queuedMessages: number;
  /** Active skills by source, with the version and hash the run has of each source. */
  skills: Array<{ source: string; version: number; hash: string; names: string[] }>;
  /** Set while a model call waits for its provider limit (phase `provider_limit`). */
  providerLimitWait?: ProviderLimitWait;
  /** Set while the run waits for a slot of a concurrency cap before its first step (phase `concurrency_slot`). */
  concurrencySlotWait?: ConcurrencySlotWait;
  /**
   * Hooks running now in the run's activities: what the run waits for. Read by the client
   * (`RunHandle.status()`) from the activities' heartbeat details, not by the query; absent when none runs.
   */
  runningHooks?: RunningHook[];
  /**
   * Model calls the provider answered (and billed) that `usage` does not count yet: their step has
   * not returned (a hook runs after the answer, or the step is being tried again). Read by the
   * client from the steps' heartbeat details; the run counts them when the step returns.
   */
  uncountedSpend?: UncountedSpend[];
}

/** A hook running in an activity of the run. */
export interface RunningHook {
  hook: string;
  point: HookPoint;
  /** The activity it runs in (`step-2.model.try-1`, ...), and its attempt. */
  activityId: string;
  attempt: number;
  /** How long it has been running, and its time limit (a hook failure after it). */
  runningForMs: number;
  limitMs: number;
}

/** The billed calls of one model step that the run has not counted yet. */
export interface UncountedSpend {
  activityId: string;
  calls: number;
  /** USD of the priced ones. */
  costUsd: number;
  unpricedCalls: number;
}

/** A gated tool call waiting for (or given) a human decision. */
export interface ApprovalRequest {
  /** Deterministic: `step-<step>.call-<n>`, unique within the run. */
  approvalId: string;
  toolName: string;
  callId: string;
  step: number;
  /** The arguments the tool will receive. */
  args: Record<string, unknown>;
  injectedArgs: Record<string, unknown>;
  /**
   * What asked for this approval besides `hitl_tools`: the before-tool hook and the rule of
   * `tool_policies` that required it, each with its reason (both, when both did: the call waits
   * once). Absent when `hitl_tools` alone gates the tool.
   */
  requiredBy?: CallDecider[];
  /**
   * What the tool does, as the worker described it to the model (at most 2,000 characters).
   * Absent when the tool has no description, or the request was made by an older worker.
   */
  toolDescription?: string;
  /** Set when the agent's `dangerous_tools` names the tool: a decider should confirm an approval twice. */
  dangerous?: true;
  /** Epoch milliseconds (workflow clock). */
  requestedAt: number;
  expiresAt: number;
}

/** How a gated tool call was decided; `timed_out` when no decision came within `hitl_timeout`. */
export type ApprovalOutcome = 'approved' | 'rejected' | 'timed_out';

/** What an operator sends: the payload of the `approval` signal and the `decideApproval` update. */
export interface ApprovalDecision {
  approvalId: string;
  decision: 'approve' | 'reject';
  reason?: string;
  /** Who decided (free text: a user name, an email, a service). */
  decidedBy?: string;
  /**
   * Which door the decision came through: `console`, `cli`, `chat`, `http` (the gateway's JSON
   * API), `ai-sdk`, `ag-ui`, `mcp`, `a2a`, or a name of yours (at most 40 characters). Absent for
   * a plain Temporal signal or update (the Temporal CLI, the Web UI). The run records it.
   */
  via?: string;
  /**
   * Who decided, signed by the gateway, the console or `issueDecisionProof` (docs/hitl.md,
   * "Verified decisions"). Required by agents with `require_verified_decisions`; ignored by others.
   */
  proof?: string;
}

/** An approval request with its decision, once there is one (null fields while it is pending). */
export interface ApprovalRecord extends ApprovalRequest {
  outcome: ApprovalOutcome | null;
  reason: string | null;
  decidedBy: string | null;
  decidedAt: number | null;
  /** The decision's door (`ApprovalDecision.via`); null for a timeout, a plain signal, or a run on a build before doors were recorded. */
  decidedVia?: string | null;
}
