// A handle on one turn of a thread: its events, streamed text, approvals and result.
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { TerminatedFailure } from '@temporalio/common';
import { ErrorCode, ThreadError } from '../protocol/errors';
import type { LiveSnapshot, ModelTextSnapshot } from '../protocol/live-snapshots';
import type { RunEvent } from '../protocol/run-events';
import { awaitTurnUpdate } from '../protocol/thread-messages';
import type { ThreadMessageReceipt, ThreadResult, TurnResult } from '../protocol/thread-types';
import { THREAD_DELETED_REASON } from './thread-lookup';
import type { RunHandle } from './run-handle';
import { transientServerError, type DecideOptions, type DecisionReceipt } from './decision-delivery';

/**
 * One turn of a thread: the answer to a message sent with `ThreadHandle.send` (or, for a message
 * injected into a running turn, that turn). It gives what a `RunHandle` gives a run: live events
 * and streamed text, approvals, the result with the turn's usage. Holds no state of its own.
 * @example
 * const turn = await agents.thread('support:customer-42', { config }).send('Where is order 42?');
 * for await (const event of turn.events()) {
 *   if (event.type === 'approval-requested') await turn.approve(event.request.approvalId, { decidedBy: 'alice' });
 * }
 * const { output, usage } = await turn.result();
 */
export class TurnHandle {
  constructor(
    /** The thread's run handle: approvals, status and live text are the thread's. */
    readonly thread: RunHandle,
    /** What the thread answered when the message was sent. */
    readonly receipt: ThreadMessageReceipt,
  ) {}

  /** The turn's number in its thread (from 1). */
  get turn(): number {
    return this.receipt.turn;
  }

  private get workflow(): WorkflowHandle {
    return this.thread.workflow;
  }

  /**
   * Waits for the turn to end and returns its result (the answer, stop reason, the turn's own usage
   * and tool results). Follows the thread through continue-as-new. A turn that stopped early
   * (max_steps, budget, interrupted by a newer message, a failed model call) still has a result:
   * check `stopReason`.
   * @throws ThreadError with code `TurnResultUnavailable` for a turn older than the results the
   * thread keeps (20): `durable-agents history <thread>` has every turn; also for a thread deleted
   * (the message says so) or terminated while the turn ran.
   */
  async result(): Promise<TurnResult> {
    for (;;) {
      let reply;
      try {
        reply = await this.workflow.executeUpdate(awaitTurnUpdate, { args: [this.turn] });
      } catch (error) {
        if (error instanceof WorkflowNotFoundError || isClosedError(error)) return this.resultOfClosedThread();
        if (error instanceof WorkflowUpdateFailedError) throw this.unavailable(error.cause?.message ?? error.message);
        // A busy thread or a restarting server: wait and ask again (the answer is the same).
        if (transientServerError(error) === null) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      if (reply.status === 'completed') return reply.result;
      if (reply.status === 'unknown') throw this.unavailable(`the thread keeps the newest turns only (${reply.turnsCompleted} completed)`);
      // `continued`: the thread moved to a new execution; ask that one.
    }
  }

  /**
   * The turn's events, live: from the moment its message was accepted until `turn-completed`
   * for this turn (other turns' events are left out). Reads the thread's `events` query as its history grows.
   */
  events(options: { pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    return this.eventsOf(this.thread.events({ cursor: this.receipt.eventCursor, ...options }));
  }

  /**
   * The turn's events out of `events`, a follow of the thread's log from `receipt.eventCursor` on
   * (what `events()` reads; a gateway passes its shared feed of the thread instead). Stops reading
   * `events` at the turn's end.
   */
  async *eventsOf(events: AsyncIterable<RunEvent>): AsyncGenerator<RunEvent> {
    let inTurn = this.receipt.disposition === 'injected';
    for await (const event of events) {
      if (event.type === 'turn-started') inTurn = event.turn === this.turn;
      if (inTurn) yield event;
      if (event.type === 'turn-completed' && event.turn === this.turn) return;
      if (event.type === 'thread-closed') return;
    }
  }

  /** The answer text while it streams (from heartbeat details, never recorded in the history). */
  liveText(options: { pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<ModelTextSnapshot> {
    return this.thread.liveText(options);
  }

  /** Live text and tool progress of the thread's running step. */
  live(options: { pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<LiveSnapshot> {
    return this.thread.live(options);
  }

  /** Approves a gated tool call of the thread (see `RunHandle.approve`). */
  approve(approvalId: string, options: { reason?: string; decidedBy?: string; via?: string } & DecideOptions = {}): Promise<DecisionReceipt> {
    return this.thread.approve(approvalId, options);
  }

  /** Rejects a gated tool call of the thread with a reason the model sees (see `RunHandle.reject`). */
  reject(approvalId: string, options: { reason: string; decidedBy?: string; via?: string } & DecideOptions): Promise<DecisionReceipt> {
    return this.thread.reject(approvalId, options);
  }

  private async resultOfClosedThread(): Promise<TurnResult> {
    const closed = (await this.workflow.result().catch((error: unknown) => {
      throw this.endedFromOutside(error);
    })) as ThreadResult;
    if (closed.lastTurn?.turn === this.turn) return closed.lastTurn;
    throw this.unavailable(`the thread closed (${closed.closedReason}) after ${closed.turnsCompleted} turn(s); its result has the last turn only`);
  }

  /**
   * The error for a thread that has no result to give: deleted (gone, or terminated by
   * `ThreadHandle.delete`), or terminated, timed out or cancelled from outside.
   */
  private endedFromOutside(error: unknown): unknown {
    const threadId = this.workflow.workflowId;
    if (error instanceof WorkflowNotFoundError) return this.unavailable(`thread ${threadId} was deleted`, true);
    if (!(error instanceof WorkflowFailedError)) return error;
    if (error.cause instanceof TerminatedFailure) {
      const reason = error.cause.message;
      return this.unavailable(
        reason === THREAD_DELETED_REASON ? `thread ${threadId} was deleted` : `thread ${threadId} was terminated: ${reason}`,
        true,
      );
    }
    return this.unavailable(`thread ${threadId} ended without closing (${error.cause?.message ?? error.message})`, true);
  }

  private unavailable(reason: string, ended = false): ThreadError {
    if (ended) return new ThreadError(ErrorCode.turnResultUnavailable, this.workflow.workflowId, `turn ${this.turn}: no result to read: ${reason}`);
    return new ThreadError(
      ErrorCode.turnResultUnavailable,
      this.workflow.workflowId,
      `turn ${this.turn} of thread ${this.workflow.workflowId}: no result to read (${reason})`,
    );
  }
}

/** An update sent to a thread that has already closed (the server refuses it). */
export function isClosedError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (/workflow execution already completed|workflow not found|not found for ID/i.test(current.message)) return true;
  }
  return false;
}
