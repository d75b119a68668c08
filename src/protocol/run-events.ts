import type { ProgressNote } from './activity-types';
import type { AgentVersionRef } from './agent-reference';
import type { HookPoint } from './hook-types';
import type { ToolCall } from './messages';
import type { ApprovalOutcome, ApprovalRequest, PlanArtifact, RunPhase, StopReason, UsageSummary } from './run-status-types';
import type { ToolResultMetadata } from './tool-result-metadata';

/**
 * The typed events of a run's live log, as the `events` query returns them. `seq` grows by one per
 * event; `at` is the workflow clock (deterministic) in epoch milliseconds.
 */
interface EventBase {
  seq: number;
  at: number;
}

/**
 * One event of a run's live log (`RunHandle.events()`, the `events` query), told apart by `type`.
 * `seq` numbers events from 1 in order, across continue-as-new; `at` is the workflow clock in
 * epoch milliseconds. The log is bounded: a slow reader may miss old events (`EventPage.missed`).
 */
export type RunEvent = EventBase &
  (
    | { type: 'run-started'; agent: string; model: string; task: string }
    /** The first event of a fork: the run and step whose conversation it continues, and the message it added. */
    | {
        type: 'run-forked';
        from: { workflowId: string; runId: string };
        step: number;
        agent: string;
        model: string;
        message: string | null;
        /** What the fork's edits changed (`history` on the fork shows their content); absent when it made none. */
        edits?: Array<{ kind: 'tool-result' | 'message'; step: number }>;
      }
    | { type: 'status-changed'; phase: RunPhase; step: number }
    | { type: 'text-produced'; step: number; text: string }
    | { type: 'tool-called'; step: number; call: ToolCall }
    | {
        type: 'tool-completed';
        step: number;
        callId: string;
        toolName: string;
        content: string;
        isError: boolean;
        metadata: ToolResultMetadata;
      }
    | { type: 'output-rejected'; step: number; reason: string }
    | { type: 'message-injected'; step: number; text: string }
    | { type: 'handoff'; step: number; from: string; to: string }
    | {
        type: 'skills-changed';
        step: number;
        source: string;
        version: number;
        added: string[];
        modified: string[];
        removed: string[];
        reloaded: boolean;
      }
    | { type: 'skill-error'; source: string; file: string; message: string }
    /** Two sources have a skill of this name: the one listed first in skill_sources is used. */
    | { type: 'skill-shadowed'; name: string; winner: string; hidden: string }
    | { type: 'plan-created'; plan: PlanArtifact }
    | { type: 'budget-advisory'; step: number; promptTokens: number; contextWindow: number; percent: number }
    | { type: 'context-compacted'; step: number; tokensBefore: number; removedMessages: number }
    | { type: 'budget-stopped'; step: number; promptTokens: number; limitTokens: number }
    /** The run (turn, thread) stopped with `cost_limit`: what it spent of which limit, and why. */
    | { type: 'cost-limit-stopped'; step: number; spentUsd: number; limitUsd: number; detail: string }
    | { type: 'mcp-progress'; step: number; callId: string; toolName: string; progress: ProgressNote }
    | { type: 'mcp-server-unavailable'; server: string; error: string }
    | { type: 'approval-requested'; request: ApprovalRequest }
    | {
        type: 'approval-decided';
        approvalId: string;
        toolName: string;
        outcome: ApprovalOutcome;
        reason: string | null;
        decidedBy: string | null;
        /** The door the decision came through (`ApprovalDecision.via`); null or absent when none was named. */
        via?: string | null;
      }
    | { type: 'approval-ignored'; approvalId: string; reason: string }
    /**
     * A decision an agent with `require_verified_decisions` refused: no proof, or one the workers
     * could not verify (`reason`); `claimedBy` is the `decidedBy` it carried. The call keeps waiting.
     */
    | { type: 'approval-refused'; approvalId: string; decision: 'approve' | 'reject'; claimedBy: string | null; reason: string }
    /** A signal whose payload failed validation (wrong types, too long, empty): it changed nothing. */
    | { type: 'signal-ignored'; signal: string; reason: string }
    /** A tool the agent has but no worker of the run does: calls to it are unknown-tool errors. */
    | { type: 'tool-unavailable'; step: number; toolName: string }
    /**
     * Loop detection found a call (`tools` has one name) or a cycle of calls (in order) made more
     * than `max_repeats` times in a row: the first time it nudged the model, after that it stopped the run.
     */
    | { type: 'loop-detected'; step: number; action: 'nudged' | 'stopped'; tools: string[]; description: string }
    /** The run failed (a deliberate failure: `failureType` is its stable code); the run's result is that failure. */
    | { type: 'run-failed'; step: number; failureType: string | null; message: string }
    /** `usage`: the run's tokens and cost at its end (absent in events logged before it was added). */
    | { type: 'run-completed'; stopReason: StopReason; output: string; usage?: UsageSummary }
    /** A named agent's definition the workers resolved (docs/agents.md); a thread moving to a newer one names the version it had. */
    | { type: 'agent-resolved'; name: string; version: string; label: string | null; previousVersion?: string }
    /** Threads: the workers no longer offer the thread's named agent (or refused its overrides): it keeps the version it has. */
    | { type: 'agent-unavailable'; name: string; keptVersion: string; reason: string }
    /** Threads: a turn starts answering a message (its first step is the next step). */
    | { type: 'turn-started'; turn: number; messageId: string; text: string }
    /** Threads: a message that waits for its turn (a turn was running). */
    | { type: 'message-queued'; turn: number; messageId: string; text: string }
    /** Threads: a newer message asked the running turn to stop at its next safe point. */
    | { type: 'turn-interrupt-requested'; turn: number; byMessageId: string }
    /** `usage`: the turn's own tokens and cost; `agentVersion`: the named agent's version that answered (both absent in events logged before they were added). */
    | {
        type: 'turn-completed';
        turn: number;
        stopReason: StopReason | 'failed';
        output: string;
        usage?: UsageSummary;
        agentVersion?: AgentVersionRef;
      }
    /** Threads whose `whenClosed` is `reopen`: a message arrived while the thread was closing (`reason`: the close's), so it stays open and answers it. */
    | { type: 'thread-close-withdrawn'; reason: string; byMessageId: string }
    | { type: 'thread-closed'; reason: string; turnsCompleted: number }
    /** A worker's hook threw (docs/hooks.md): `outcome` says whether that failed the call (`hook_errors: fail`) or was ignored. */
    | { type: 'hook-failed'; step: number; hook: string; point: HookPoint; message: string; outcome: 'failed' | 'ignored' }
    /** The run's (turn's) instructions: from the agent's instructions provider, or its static instructions and why. */
    | { type: 'instructions-resolved'; step: number; provider: string; source: 'provider' | 'fallback'; characters: number; reason?: string }
  );

/** The `type` of a `RunEvent`: `'run-started'`, `'tool-called'`, `'approval-requested'`, ... */
export type RunEventType = RunEvent['type'];

/** Distributes over the union so each event keeps its own fields. */
type WithoutStamp<T> = T extends unknown ? Omit<T, 'seq' | 'at'> : never;
export type NewRunEvent = WithoutStamp<RunEvent>;

/** The reply of the `events` query: events after a cursor. */
export interface EventPage {
  events: RunEvent[];
  /** Pass back as the cursor to get what follows. */
  nextCursor: number;
  /** Events after the cursor that were trimmed from the bounded log before they were read. */
  missed: number;
  finished: boolean;
}
