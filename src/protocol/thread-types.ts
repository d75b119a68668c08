// Serialisable shapes of threads (durable multi-turn conversations) that cross the workflow boundary.
import type { AgentConfig } from '../config/agent-config';
import type { Message } from './messages';
import type { AgentVersionRef } from './agent-reference';
import type { AgentRunResult, CarriedState, RunTimeouts, StoredToolResults, ToolResult, UsageSummary } from './run-types';

/**
 * What happens to a message that arrives while the thread's agent is answering another one:
 * - `enqueue` (default): it gets its own turn, after the turns before it, in arrival order;
 * - `inject`: the running turn sees it before its next model call (and answers it);
 * - `interrupt`: the running turn stops at its next safe point (completed tool results are kept;
 *   calls waiting for approval are rejected), and a new turn answers this message;
 * - `reject`: the message is refused at once with `ThreadBusy`; nothing is recorded.
 * A message that arrives while nothing runs starts a turn, whatever its policy.
 */
export type ThreadPolicy = 'enqueue' | 'inject' | 'interrupt' | 'reject';

/** The policies, for validation and help texts. */
export const THREAD_POLICIES: readonly ThreadPolicy[] = ['enqueue', 'inject', 'interrupt', 'reject'];

/**
 * What a message to a closed thread does: `refuse` (default) answers `ThreadClosed`; `reopen`
 * starts a new execution of the same thread id that goes on where the closed one ended (its
 * conversation, turn numbers and settings).
 */
export type ThreadClosedPolicy = 'refuse' | 'reopen';

/** The closed-thread policies, for validation and help texts. */
export const THREAD_CLOSED_POLICIES: readonly ThreadClosedPolicy[] = ['refuse', 'reopen'];

/** Settings a thread is created with (by its first message); they hold for its whole life. */
export interface ThreadSettings {
  /** The policy of messages that do not name one. Default: `enqueue`. */
  policy: ThreadPolicy;
  /** Milliseconds without a message after which an idle thread closes itself; null: never. */
  idleTimeoutMs: number | null;
  /** The resource (a user, a team) the thread belongs to: shown in `AgentResource`, given to memory tools. */
  resourceId: string | null;
  /** What a message to the thread once it closed does. Absent (threads created before it): `refuse`. */
  whenClosed?: ThreadClosedPolicy;
}

/** The payload of the `sendMessage` update: one user message for the thread. */
export interface ThreadMessage {
  /** Unique per thread: a message sent twice with one id is answered once (the second send gets the first receipt). */
  messageId: string;
  text: string;
  /** This message's policy when a turn is running; default: the thread's. */
  policy?: ThreadPolicy;
  /**
   * Fingerprint of the config the sender meant the thread to have: a thread created with another
   * config refuses the message (`ThreadConfigMismatch`) instead of answering it with the wrong agent.
   * It is the hash of the config as its sender wrote it (keys in a stable order), so a library
   * upgrade that changes a default does not change it.
   */
  configHash?: string;
  /**
   * The fingerprint threads created before `configHash` hashed the caller's config kept: the hash
   * of the parsed config (defaults filled in). Sent beside `configHash` so those threads still
   * recognise their caller; a thread accepts a message when either hash is its own.
   */
  parsedConfigHash?: string;
}

/** What `sendMessage` answers: which turn answers the message, and how it got there. */
export interface ThreadMessageReceipt {
  messageId: string;
  /** The turn that answers this message (turns are numbered from 1). */
  turn: number;
  /** `started`: a turn starts with it now; `queued`: a later turn; `injected`: the running turn; `interrupting`: the running turn stops for it. */
  disposition: 'started' | 'queued' | 'injected' | 'interrupting';
  /** True when this message id had been sent before: the first receipt, nothing added. */
  duplicate: boolean;
  /** The thread's event cursor when the message was accepted: the turn's events come after it. */
  eventCursor: number;
}

/** How one turn ended, as `awaitTurn` and the `thread` query report it. */
export interface TurnResult {
  turn: number;
  /** The messages this turn answered (its first, and any injected into it). */
  messageIds: string[];
  output: string;
  /**
   * `interrupted` when a newer message stopped the turn (policy `interrupt`); `failed` when a
   * deliberate failure (a non-retryable model error, say) ended it: the thread goes on.
   */
  stopReason: AgentRunResult['stopReason'] | 'failed';
  stopDetail?: string;
  /** Set when `stopReason` is `failed`: the failure's stable type and message. */
  failure?: { type: string | null; message: string };
  structuredOutput?: unknown;
  /** The turn's first and last step, as the thread's steps are numbered. */
  firstStep: number;
  lastStep: number;
  /** Tokens of this turn alone. */
  usage: UsageSummary;
  /** The turn's tool results, newest last (bounded as a run result's). */
  toolResults: ToolResult[];
  /**
   * Set on a turn a continued thread carried by reference (`thread-carried-turns`): this many tool
   * results are in the artifact store, not in `toolResults`. `awaitTurn` (`TurnHandle.result()`)
   * reads them back; the `thread` query answers without them.
   */
  toolResultsStored?: number;
  /** Epoch milliseconds (workflow clock). */
  startedAt: number;
  completedAt: number;
}

/** A message waiting for its turn. */
export interface QueuedThreadMessage {
  messageId: string;
  text: string;
  turn: number;
}

/** Where a thread stands: `idle` between turns, `running` during one, `closed` at the end. */
export type ThreadPhase = 'idle' | 'running' | 'closed';

/** The reply of the `thread` query. */
export interface ThreadStatus {
  phase: ThreadPhase;
  agent: string;
  settings: ThreadSettings;
  /** Turns completed so far. */
  turnsCompleted: number;
  /** The running turn, if any. */
  currentTurn: number | null;
  queued: QueuedThreadMessage[];
  /** The newest completed turns (the last `RECENT_TURNS`), oldest first. */
  recentTurns: TurnResult[];
  usage: UsageSummary;
  /** Why it closed, once closed. */
  closedReason: string | null;
}

/** The reply of the `awaitTurn` update: the turn's result, or where to look when there is none. */
export type AwaitTurnReply =
  | { status: 'completed'; result: TurnResult }
  /** The thread continued as new while waiting: ask again (the next execution answers). */
  | { status: 'continued' }
  /** The turn is older than the results the thread keeps (`history` has it), or not a turn of this thread. */
  | { status: 'unknown'; turnsCompleted: number };

/** One turn's tool results, as a continued thread stores them (`CarriedThreadState.turnToolResults`). */
export interface TurnToolResults {
  turn: number;
  toolResults: ToolResult[];
}

/** What a thread carries through continue-as-new besides the run's own state. */
export interface CarriedThreadState {
  turnsCompleted: number;
  /** Turn number of the turn in progress, when the thread continued in the middle of one. */
  activeTurn: {
    turn: number;
    messageIds: string[];
    firstStep: number;
    startedAt: number;
    usageAtStart: UsageSummary;
    toolResultsAtStart: number;
  } | null;
  queued: QueuedThreadMessage[];
  recentTurns: TurnResult[];
  /** Recent message ids with their receipts, so a resent message is answered once. */
  seenMessages: Array<[messageId: string, receipt: ThreadMessageReceipt]>;
  /** Messages injected into the running turn after the conversation was saved: the next execution injects them. */
  injected?: string[];
  /** The artifact holding the tool results of the recent turns marked `toolResultsStored`. */
  turnToolResults?: StoredToolResults;
  /** When the thread began waiting for its next message, if it continued (moved to a new build) while waiting: its idle timeout counts from here. */
  idleSince?: number;
}

/** The input of the `agentThread` workflow as a client writes it (built by `AgentClient.thread(...).send`). */
export interface AgentThreadInput {
  config: AgentConfig;
  /** `configHash` of the config the thread was created with (messages naming another are refused). */
  configHash: string;
  settings: ThreadSettings;
  /** Earlier conversation the thread starts from (optional). */
  messages?: Message[];
  agents?: Record<string, AgentConfig>;
  timeouts?: Partial<RunTimeouts>;
  historyEventLimit?: number;
  historySizeLimitBytes?: number;
}

/**
 * What the `agentThread` workflow receives: the `AgentThreadInput` a client writes, plus what the
 * thread carries into its next execution when it continues as new. One object on the wire; not
 * exported from the package's entry points.
 */
export interface AgentThreadWorkflowInput extends AgentThreadInput {
  /** The definition of the named agent this execution answers with (set by the thread, carried through continue-as-new). */
  agentVersion?: AgentVersionRef;
  /** Set by the thread itself when it continues as new. */
  carried?: CarriedState;
  carriedThread?: CarriedThreadState;
}

/** What the `agentThread` workflow returns when the thread closes. */
export interface ThreadResult {
  turnsCompleted: number;
  closedReason: string;
  usage: UsageSummary;
  /** The last completed turn, if any. */
  lastTurn: TurnResult | null;
  /**
   * Set when the thread's `whenClosed` is `reopen`: the input of the execution that reopens it
   * (its conversation by reference, turn numbers, settings), which a client starts with the next
   * message.
   */
  reopenWith?: AgentThreadWorkflowInput;
}
