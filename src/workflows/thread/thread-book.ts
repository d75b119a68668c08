// A thread's bookkeeping: queued messages, the running turn, recent results, seen message ids. Pure.
import type { StoredToolResults, UsageSummary } from '../../protocol/run-types';
import type {
  CarriedThreadState,
  QueuedThreadMessage,
  ThreadMessage,
  ThreadMessageReceipt,
  ThreadPolicy,
  TurnResult,
  TurnToolResults,
} from '../../protocol/thread-types';
import type { RefusalType } from '../../protocol/message-validation';

/** Completed turns whose results a thread keeps (for `awaitTurn` and the `thread` query). */
export const RECENT_TURNS = 20;
/** Message ids a thread remembers, so a resent message is answered once. */
export const SEEN_MESSAGES = 1_000;

/** The turn being answered now. */
export type ActiveTurn = NonNullable<CarriedThreadState['activeTurn']>;

/** What the thread does with an accepted message. */
export type MessageAction = 'queue' | 'inject' | 'interrupt' | 'none';

/** Why a message is refused; `reopens`: the thread is closing and the next execution (its `whenClosed` is `reopen`) will take it. */
export interface MessageRefusal {
  type: RefusalType;
  reason: string;
  reopens?: true;
}

/**
 * The thread's own state besides the run state its turns share: which messages wait, which turn
 * runs, what recent turns answered, which message ids were seen (with their receipts). Decisions
 * here are pure and deterministic; the workflow acts on them.
 *
 * Turn numbers are given when a message is accepted and never change: turns run in order, one at
 * a time, so the n-th queued message is answered by turn `completed + running + n`.
 */
export class ThreadBook {
  turnsCompleted: number;
  current: ActiveTurn | null;
  readonly queued: QueuedThreadMessage[];
  readonly recentTurns: TurnResult[];
  private readonly seen: Map<string, ThreadMessageReceipt>;
  /** Set by `closeThread` (or the idle timeout): no more messages; close after the queued turns. */
  closing: string | null = null;
  closedReason: string | null = null;
  /** Set while the execution waits to continue as new: waiting `awaitTurn` calls answer `continued`. */
  continuing = false;
  /** Where the carried recent turns' tool results are (`toolResultsStored`), until they are read back. */
  storedTurnResults: StoredToolResults | null;
  /**
   * When the thread began waiting for its next message (workflow time), while it waits: carried
   * through continue-as-new, so a thread moved to a new build while idle keeps its idle deadline.
   */
  private idleSince: number | null;

  /**
   * @param reopens the thread's `whenClosed` is `reopen`: a message that arrives while it closes
   * is answered (the close is withdrawn) rather than refused, as a message just after the close
   * would reopen it.
   */
  constructor(
    private readonly configHash: string,
    carried?: CarriedThreadState,
    private readonly reopens = false,
  ) {
    this.turnsCompleted = carried?.turnsCompleted ?? 0;
    this.current = carried?.activeTurn ?? null;
    this.queued = [...(carried?.queued ?? [])];
    this.recentTurns = [...(carried?.recentTurns ?? [])];
    this.seen = new Map((carried?.seenMessages ?? []).map(([messageId, receipt]) => [messageId, receipt]));
    this.storedTurnResults = carried?.turnToolResults ?? null;
    this.idleSince = carried?.idleSince ?? null;
  }

  /**
   * How long the thread may still wait for a message before its idle timeout closes it: the whole
   * `idleTimeoutMs` from `now` when a wait begins, what is left of it in an execution that continued
   * (moved) while waiting. At least 1 ms (a timer must have a duration).
   */
  idleTimeLeft(now: number, idleTimeoutMs: number): number {
    this.idleSince ??= now;
    return Math.max(1, this.idleSince + idleTimeoutMs - now);
  }

  /** Whether a turn runs or waits: a message with policy `reject` is refused then. */
  get busy(): boolean {
    return this.current !== null || this.queued.length > 0;
  }

  /** Why a valid message cannot be accepted, or null. A message id seen before is always accepted (it gets its first receipt). */
  refusal(message: ThreadMessage, defaultPolicy: ThreadPolicy): MessageRefusal | null {
    if (this.seen.has(message.messageId)) return null;
    if (this.closedReason !== null && this.reopens) {
      // Its last moments (saving the conversation for the next execution): too late to stay open.
      return {
        type: 'ThreadClosed',
        reason: `the thread is closing (${this.closedReason}) and reopens with the next message once closed: send it again`,
        reopens: true,
      };
    }
    if (this.closedReason !== null || (this.closing !== null && !this.reopens)) {
      return { type: 'ThreadClosed', reason: `the thread is closed (${this.closedReason ?? this.closing}): start a new thread` };
    }
    // A thread created before hashes were taken of the caller's own config holds the parsed
    // config's hash: a message naming it (`parsedConfigHash`) is that caller's too.
    if (message.configHash !== undefined && message.configHash !== this.configHash && message.parsedConfigHash !== this.configHash) {
      return {
        type: 'ThreadConfigMismatch',
        reason: `the thread was created with another agent config (hash ${this.configHash}, this message's ${message.configHash})`,
      };
    }
    if ((message.policy ?? defaultPolicy) === 'reject' && this.busy) {
      const running = this.current ? `turn ${this.current.turn} is running` : `${this.queued.length} message(s) wait`;
      return {
        type: 'ThreadBusy',
        reason: `${running}; this message's policy is reject: send it again when the thread is idle, or with policy enqueue`,
      };
    }
    return null;
  }

  /**
   * Accepts a message (its refusal was checked): the receipt the sender gets, and what the thread
   * does. `inject` and `interrupt` apply to a running turn only; otherwise the message is queued.
   * A new message to a thread that reopens and is closing withdraws the close (`withdrawnClose`:
   * the close's reason): the thread stays open and answers it.
   */
  accept(
    message: ThreadMessage,
    defaultPolicy: ThreadPolicy,
    eventCursor: number,
  ): { receipt: ThreadMessageReceipt; action: MessageAction; withdrawnClose?: string } {
    const earlier = this.seen.get(message.messageId);
    if (earlier) return { receipt: { ...earlier, duplicate: true }, action: 'none' };
    const withdrawnClose = this.withdrawClose();
    const policy = message.policy ?? defaultPolicy;
    let receipt: ThreadMessageReceipt;
    let action: MessageAction;
    if (this.current && policy === 'inject') {
      this.current.messageIds.push(message.messageId);
      receipt = { messageId: message.messageId, turn: this.current.turn, disposition: 'injected', duplicate: false, eventCursor };
      action = 'inject';
    } else {
      const turn = this.nextTurnNumber();
      const disposition = !this.busy ? 'started' : this.current && policy === 'interrupt' ? 'interrupting' : 'queued';
      this.queued.push({ messageId: message.messageId, text: message.text, turn });
      receipt = { messageId: message.messageId, turn, disposition, duplicate: false, eventCursor };
      action = disposition === 'interrupting' ? 'interrupt' : 'queue';
    }
    this.remember(receipt);
    return { receipt, action, ...(withdrawnClose !== null ? { withdrawnClose } : {}) };
  }

  /** Cancels a pending close of a thread that reopens (not one already closing for good); its reason, or null. */
  private withdrawClose(): string | null {
    if (!this.reopens || this.closing === null || this.closedReason !== null) return null;
    const reason = this.closing;
    this.closing = null;
    return reason;
  }

  /** Starts the next queued message's turn. */
  startNext(firstStep: number, startedAt: number, usageAtStart: UsageSummary, toolResultsAtStart: number): QueuedThreadMessage {
    const next = this.queued.shift()!;
    this.idleSince = null;
    this.current = { turn: next.turn, messageIds: [next.messageId], firstStep, startedAt, usageAtStart, toolResultsAtStart };
    return next;
  }

  /** Records the running turn's result; the thread is then between turns (or starts the next queued one). */
  complete(result: TurnResult): void {
    this.recentTurns.push(result);
    if (this.recentTurns.length > RECENT_TURNS) this.recentTurns.splice(0, this.recentTurns.length - RECENT_TURNS);
    this.turnsCompleted = result.turn;
    this.current = null;
  }

  /** The result of turn `turn`, if the thread still keeps it. */
  resultOf(turn: number): TurnResult | undefined {
    return this.recentTurns.find((result) => result.turn === turn);
  }

  /** Puts the tool results read back from `storedTurnResults` into the recent turns they belong to. */
  restoreStoredResults(turns: TurnToolResults[]): void {
    const byTurn = new Map(turns.map((turn) => [turn.turn, turn.toolResults]));
    for (const [index, result] of this.recentTurns.entries()) {
      if (!result.toolResultsStored) continue;
      const { toolResultsStored: _stored, ...rest } = result;
      this.recentTurns[index] = { ...rest, toolResults: byTurn.get(result.turn) ?? [] };
    }
    this.storedTurnResults = null;
  }

  /** What the next execution needs (continue-as-new). */
  carry(): CarriedThreadState {
    return {
      turnsCompleted: this.turnsCompleted,
      activeTurn: this.current,
      queued: [...this.queued],
      recentTurns: [...this.recentTurns],
      seenMessages: [...this.seen.entries()],
      ...(this.idleSince !== null ? { idleSince: this.idleSince } : {}),
    };
  }

  private nextTurnNumber(): number {
    return this.turnsCompleted + (this.current ? 1 : 0) + this.queued.length + 1;
  }

  private remember(receipt: ThreadMessageReceipt): void {
    this.seen.set(receipt.messageId, receipt);
    if (this.seen.size > SEEN_MESSAGES) this.seen.delete(this.seen.keys().next().value!);
  }
}
