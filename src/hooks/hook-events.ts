// What a lifecycle hook is given at each point, and what it may return (the public types of hooks).
import type { Message, ToolCall, Usage } from '../protocol/messages';
import type { ApprovalDecidedFacts, EndFacts, ErrorFacts, HandoffFacts } from '../protocol/hook-types';

/** What every hook is told: whose run, which execution, and (when it has them) its resource and thread. */
export interface HookEventBase {
  /** The agent's name (its config's `name`). */
  agent: string;
  workflowId: string;
  runId: string;
  resourceId?: string;
  threadId?: string;
  /**
   * The try of the activity the hook runs in (1, 2, ...): hooks run at least once, like any activity
   * code, so one whose activity was retried (a lost worker, a provider failure) runs again.
   */
  attempt: number;
}

/** `run-start`: a run begins (not a continuation of it), in its first model step, before the model is called. */
export interface RunStartEvent extends HookEventBase {
  task: string;
}

/** `turn-start`: a thread turn begins, in its first model step, before the model is called. */
export interface TurnStartEvent extends HookEventBase {
  turn: number;
  message: string;
}

/** `before-model`: a model call is about to be made with this prompt. */
export interface BeforeModelEvent extends HookEventBase {
  step: number;
  purpose: 'executor' | 'planner';
  model: string;
  system: string;
  messages: readonly Message[];
}

/** `after-model`: the model replied; return `{ text }` to replace the text that is recorded and shown. */
export interface AfterModelEvent extends HookEventBase {
  step: number;
  purpose: 'executor' | 'planner';
  model: string;
  text: string;
  toolCalls: readonly ToolCall[];
  usage: Usage;
}

/** What an after-model hook may return: the text to record instead (nothing: keep it). */
export interface ModelTextChange {
  text: string;
}

/** `before-tool`: the model asked for this call; decide what happens to it (nothing: let it through). */
export interface BeforeToolEvent extends HookEventBase {
  step: number;
  /** The call with its executable arguments (injected args apart, in `injectedArgs`). */
  call: ToolCall;
  injectedArgs: Record<string, unknown>;
}

/**
 * A before-tool decision: let the call through, run it with other arguments, deny it (the model
 * gets an error result with the reason), or have a human approve it first (the reason is shown
 * with the approval request). Taken once and recorded: a run replays it, never asks again.
 */
export type ToolCallVerdict =
  | { action: 'allow' }
  | { action: 'modify'; args: Record<string, unknown>; reason?: string }
  | { action: 'deny'; reason: string }
  | { action: 'require_approval'; reason: string };

/** `after-tool`: the tool's result, before it is recorded; return `{ content }` to record other content. */
export interface AfterToolEvent extends HookEventBase {
  step: number;
  call: ToolCall;
  result: { content: string; isError: boolean; errorCode?: string };
}

/** What an after-tool hook may return: the content to record instead (nothing: keep it). */
export interface ToolResultChange {
  content: string;
}

/** `approval-decided`: a gated call was approved, rejected or timed out. */
export interface ApprovalDecidedEvent extends HookEventBase, ApprovalDecidedFacts {
  step: number;
}

/** `handoff`: the run hands the conversation to another agent (after this step). */
export interface HandoffEvent extends HookEventBase, HandoffFacts {
  step: number;
}

/** `run-end` and `turn-end`: how the run (turn) ended (`stopReason` is `failed` for a failure). */
export interface EndEvent extends HookEventBase, EndFacts {
  step: number;
}

/** `turn-end` adds the turn. */
export interface TurnEndEvent extends EndEvent {
  turn: number;
}

/** `error`: a model call or a tool failed, or the run (a turn) failed. */
export interface ErrorEvent extends HookEventBase, ErrorFacts {
  step: number;
}

/** The event each point's hooks get. */
export interface HookEvents {
  'run-start': RunStartEvent;
  'run-end': EndEvent;
  'turn-start': TurnStartEvent;
  'turn-end': TurnEndEvent;
  'before-model': BeforeModelEvent;
  'after-model': AfterModelEvent;
  'before-tool': BeforeToolEvent;
  'after-tool': AfterToolEvent;
  'approval-decided': ApprovalDecidedEvent;
  handoff: HandoffEvent;
  error: ErrorEvent;
}

/** What each point's hooks may return (`void` where they only observe). */
export interface HookResults {
  'run-start': void;
  'run-end': void;
  'turn-start': void;
  'turn-end': void;
  'before-model': void;
  'after-model': ModelTextChange | void;
  'before-tool': ToolCallVerdict | void;
  'after-tool': ToolResultChange | void;
  'approval-decided': void;
  handoff: void;
  error: void;
}
