// The thread's update, query and signal handlers: messages in, turn results out, close.
import { condition, setHandler } from '@temporalio/workflow';
import {
  awaitTurnUpdate,
  closeThreadSignal,
  closeThreadUpdate,
  sendMessageSignal,
  sendMessageUpdate,
  threadQuery,
  ThreadMessageDescription,
  validateCloseRequest,
  validateThreadMessage,
} from '../../protocol/thread-messages';
import type { AwaitTurnReply, ThreadMessage, ThreadMessageReceipt, ThreadSettings, ThreadStatus } from '../../protocol/thread-types';
import { WireName } from '../../protocol/wire-names';
import type { ApprovalGate } from '../loop/approval-gate';
import { refusal, reportIgnoredSignal, validOrRefuse } from '../loop/message-refusal';
import type { ThreadState } from './thread-state';
import type { ThreadBook } from './thread-book';
import { showActivity } from './thread-lifecycle';
import { restoreTurnToolResults } from './restore-turn-results';

/** Who rejects the calls waiting for approval in a turn that a newer message interrupts. */
const INTERRUPTER = 'thread';

/** A `sendMessage` payload checked and taken as the update's handler would: a receipt, or a refusal thrown. */
export type MessageDelivery = (payload: unknown) => ThreadMessageReceipt;

/**
 * Registers `sendMessage`, `awaitTurn`, `closeThread` (update and signal) and the `thread` query.
 * Every message is checked by the update's validator first: a refused one changes nothing and is
 * not recorded. An accepted message is queued for its turn, injected into the running turn, or
 * interrupts it, as its policy says (see `ThreadBook.accept`). Returns the message check and
 * acceptance in one, for messages that arrived before the handlers (a named thread's first).
 */
export function installThreadHandlers(state: ThreadState, book: ThreadBook, approvals: ApprovalGate, settings: ThreadSettings): MessageDelivery {
  const accept = (message: ThreadMessage): ThreadMessageReceipt => {
    const { receipt, action, withdrawnClose } = book.accept(message, settings.policy, state.events.lastSeq);
    if (withdrawnClose !== undefined) state.events.push({ type: 'thread-close-withdrawn', reason: withdrawnClose, byMessageId: message.messageId });
    if (action === 'inject') state.injectedQueue.push(message.text);
    if (action === 'interrupt' && book.current) {
      state.execution.interruptRequested = true;
      state.events.push({ type: 'turn-interrupt-requested', turn: book.current.turn, byMessageId: message.messageId });
      approvals.rejectPending(`interrupted by a newer message (${message.messageId})`, INTERRUPTER);
    }
    if (receipt.disposition !== 'started' && (action === 'queue' || action === 'interrupt')) {
      state.events.push({ type: 'message-queued', turn: receipt.turn, messageId: message.messageId, text: message.text });
    }
    // A message that starts a turn at once is marked by the turn's start, in the same command.
    if (receipt.disposition !== 'started' && action !== 'none') showActivity();
    return receipt;
  };
  setHandler(
    sendMessageSignal,
    (payload) => {
      const checked = validateThreadMessage(payload);
      const refused = checked.ok ? book.refusal(checked.value, settings.policy) : { reason: checked.reason };
      if (refused) return reportIgnoredSignal(state.events, WireName.sendMessageSignal, refused.reason);
      if (checked.ok) accept(checked.value);
    },
    { description: ThreadMessageDescription.sendMessageSignal },
  );
  setHandler(sendMessageUpdate, (payload) => accept(validOrRefuse(validateThreadMessage(payload))), {
    description: ThreadMessageDescription.sendMessage,
    validator: (payload) => {
      const message = validOrRefuse(validateThreadMessage(payload));
      const refused = book.refusal(message, settings.policy);
      if (refused) throw refusal(refused.type, refused.reason, refused.reopens ? { reopens: true } : undefined);
    },
  });

  setHandler(
    awaitTurnUpdate,
    async (turn): Promise<AwaitTurnReply> => {
      await condition(() => book.resultOf(turn) !== undefined || book.continuing || book.closedReason !== null || isForgotten(book, turn));
      // A turn the previous execution carried by reference gets its tool results back first.
      await restoreTurnToolResults(state, book, turn);
      const result = book.resultOf(turn);
      if (result) return { status: 'completed', result };
      if (book.continuing) return { status: 'continued' };
      return { status: 'unknown', turnsCompleted: book.turnsCompleted };
    },
    {
      description: ThreadMessageDescription.awaitTurn,
      validator: (turn) => {
        const last = book.turnsCompleted + (book.current ? 1 : 0) + book.queued.length;
        if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < 1 || turn > last) {
          throw refusal('InvalidMessage', `turn: must be a turn of this thread (1 to ${last}), not ${JSON.stringify(turn)}`);
        }
      },
    },
  );

  const close = (reason: string | undefined): void => {
    if (book.closing === null && book.closedReason === null) book.closing = reason?.trim() || 'closed on request';
  };
  setHandler(
    closeThreadUpdate,
    (request) => {
      close(validateCloseRequest(request).ok ? request?.reason : undefined);
      return { turnsCompleted: book.turnsCompleted };
    },
    { description: ThreadMessageDescription.closeThread, validator: (request) => void validOrRefuse(validateCloseRequest(request)) },
  );
  setHandler(
    closeThreadSignal,
    (request) => {
      const checked = validateCloseRequest(request);
      if (checked.ok) return close(checked.value.reason);
      reportIgnoredSignal(state.events, WireName.closeThreadSignal, checked.reason);
    },
    { description: ThreadMessageDescription.closeThread },
  );
  setHandler(threadQuery, () => threadStatus(state, book, settings), { description: ThreadMessageDescription.thread });
  return (payload) => {
    const message = validOrRefuse(validateThreadMessage(payload));
    const refused = book.refusal(message, settings.policy);
    if (refused) throw refusal(refused.type, refused.reason, refused.reopens ? { reopens: true } : undefined);
    return accept(message);
  };
}

/** A completed turn whose result the thread no longer keeps (only the newest are kept). */
function isForgotten(book: ThreadBook, turn: number): boolean {
  return turn <= book.turnsCompleted && book.resultOf(turn) === undefined;
}

/** The answer to the `thread` query. */
function threadStatus(state: ThreadState, book: ThreadBook, settings: ThreadSettings): ThreadStatus {
  return {
    phase: book.closedReason !== null ? 'closed' : book.current ? 'running' : 'idle',
    agent: state.config.name,
    ...(state.execution.input.agentVersion ? { agentVersion: state.execution.input.agentVersion } : {}),
    ...(state.execution.input.agent?.version !== undefined ? { pinned: true } : {}),
    settings,
    turnsCompleted: book.turnsCompleted,
    currentTurn: book.current?.turn ?? null,
    queued: [...book.queued],
    recentTurns: [...book.recentTurns],
    usage: state.usage,
    closedReason: book.closedReason,
  };
}
