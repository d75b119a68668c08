// Update, query and signal definitions of threads and the validation of what clients send them.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { isRecord, MessageLimits, optionalStringProblem, refused, shown, stringProblem, unknownField, type Validated } from './message-validation';
import {
  THREAD_POLICIES,
  type AwaitTurnReply,
  type ThreadMessage,
  type ThreadMessageReceipt,
  type ThreadPolicy,
  type ThreadStatus,
} from './thread-types';
import { WireName } from './wire-names';

/** Bounds of a thread message's fields, in characters. */
export const ThreadMessageLimits = {
  messageId: 200,
  text: MessageLimits.injectedText,
  configHash: 128,
  closeReason: 1_000,
} as const;

/** The descriptions the thread registers with its handlers (`temporal workflow metadata`, the Web UI). */
export const ThreadMessageDescription = {
  sendMessage:
    'A user message for the thread: { messageId, text, policy?: "enqueue" | "inject" | "interrupt" | "reject", configHash?, parsedConfigHash? } → { messageId, turn, disposition, duplicate }. Refused (ThreadBusy, ThreadClosed, ThreadConfigMismatch, EmptyMessage, InvalidMessage) when it cannot apply.',
  sendMessageSignal:
    'The same message as a signal, durable without a worker and without a receipt: { messageId, text, policy?, configHash?, parsedConfigHash? }. A message the update would refuse is ignored and recorded as a signal-ignored event.',
  awaitTurn:
    'Waits until turn N has ended: arg turn (number) → { status: "completed", result } | { status: "continued" } (ask again) | { status: "unknown" }.',
  closeThread: 'Closes the thread after its running and queued turns: { reason? }. A closed thread refuses messages.',
  thread: 'The thread now: { phase, agent, settings, turnsCompleted, currentTurn, queued, recentTurns, usage, closedReason }. No arguments.',
} as const;

/**
 * A user message for a thread (`sendMessage`). Its validator refuses a malformed message, a
 * `reject`-policy message while a turn runs (`ThreadBusy`), a closed thread (`ThreadClosed`) and a
 * config other than the thread's (`ThreadConfigMismatch`); nothing is recorded then. Sent with
 * update-with-start by `ThreadHandle.send`, so the first message creates the thread atomically.
 * @example
 * import { sendMessageUpdate } from 'durable-agents/workflow';
 *
 * const receipt = await client.workflow
 *   .getHandle('support:customer-42')
 *   .executeUpdate(sendMessageUpdate, { args: [{ messageId: 'm-2', text: 'And my other order?' }] });
 * console.log(receipt.turn, receipt.disposition);
 */
export const sendMessageUpdate = defineUpdate<ThreadMessageReceipt, [ThreadMessage]>(WireName.sendMessageUpdate);

/**
 * The same message as a signal (`sendMessageSignal`): durable even while no worker runs, with no
 * receipt. For the Temporal CLI, the Web UI and your own workflows (which cannot send updates to
 * other workflows). A message the update would refuse is ignored and recorded in the thread's
 * event log (`signal-ignored`, with the reason); a resent id is ignored silently.
 * @example
 * // temporal workflow signal --workflow-id support:customer-42 --name sendMessageSignal --input '{"messageId":"m-7","text":"Any news?"}'
 * import { getExternalWorkflowHandle } from '@temporalio/workflow';
 * import { sendMessageSignal } from 'durable-agents/workflow';
 *
 * await getExternalWorkflowHandle('support:customer-42').signal(sendMessageSignal, { messageId: 'order-42-shipped', text: 'Order 42 has shipped.' });
 */
export const sendMessageSignal = defineSignal<[ThreadMessage]>(WireName.sendMessageSignal);

/**
 * Waits for turn `turn` to end (`awaitTurn`) and returns its result; `continued` when the thread
 * continued as new meanwhile (ask again: the next execution answers). `TurnHandle.result()` does this.
 * @example
 * import { awaitTurnUpdate } from 'durable-agents/workflow';
 *
 * const handle = client.workflow.getHandle('support:customer-42');
 * let reply = await handle.executeUpdate(awaitTurnUpdate, { args: [3] });
 * while (reply.status === 'continued') reply = await handle.executeUpdate(awaitTurnUpdate, { args: [3] });
 * if (reply.status === 'completed') console.log(reply.result.output);
 */
export const awaitTurnUpdate = defineUpdate<AwaitTurnReply, [turn: number]>(WireName.awaitTurnUpdate);

/**
 * Closes the thread once its running and queued turns are done (`closeThread`); later messages are refused.
 * @example
 * import { closeThreadUpdate } from 'durable-agents/workflow';
 *
 * await client.workflow.getHandle('support:customer-42').executeUpdate(closeThreadUpdate, { args: [{ reason: 'resolved' }] });
 */
export const closeThreadUpdate = defineUpdate<{ turnsCompleted: number }, [{ reason?: string }]>(WireName.closeThreadUpdate);

/**
 * The same close as a signal (`closeThreadSignal`): durable without a worker, for the Temporal CLI and the Web UI.
 * @example
 * // temporal workflow signal --workflow-id support:customer-42 --name closeThreadSignal --input '{"reason":"resolved"}'
 * import { closeThreadSignal } from 'durable-agents/workflow';
 *
 * await client.workflow.getHandle('support:customer-42').signal(closeThreadSignal, { reason: 'resolved' });
 */
export const closeThreadSignal = defineSignal<[{ reason?: string }]>(WireName.closeThreadSignal);

/**
 * The thread's state now (`thread`): phase, queued messages, recent turns. Needs a worker.
 * @example
 * import { threadQuery } from 'durable-agents/workflow';
 *
 * const status = await client.workflow.getHandle('support:customer-42').query(threadQuery);
 * console.log(status.phase, status.turnsCompleted, status.queued.length);
 */
export const threadQuery = defineQuery<ThreadStatus>(WireName.threadQuery);

/**
 * The payload of `sendMessage`: `messageId` (1-200 characters), `text` (not blank, at most 100,000
 * characters), optionally `policy` (one of the four), `configHash` and `parsedConfigHash`; no other field.
 * @example
 * validateThreadMessage({ messageId: 'm-1', text: ' ' });
 * // { ok: false, type: 'EmptyMessage', reason: 'text: must not be empty' }
 */
export function validateThreadMessage(payload: unknown): Validated<ThreadMessage> {
  if (!isRecord(payload)) return refused(`a thread message must be an object with messageId and text, not ${shown(payload)}`);
  const extra = unknownField(payload, ['messageId', 'text', 'policy', 'configHash', 'parsedConfigHash']);
  if (extra) return refused(extra);
  const idProblem = stringProblem('messageId', payload.messageId, ThreadMessageLimits.messageId, true);
  if (idProblem) return refused(idProblem);
  if (typeof payload.text === 'string' && payload.text.trim() === '') return refused('text: must not be empty', 'EmptyMessage');
  const textProblem = stringProblem('text', payload.text, ThreadMessageLimits.text, true);
  if (textProblem) return refused(textProblem);
  if (payload.policy !== undefined && payload.policy !== null && !THREAD_POLICIES.includes(payload.policy as ThreadPolicy)) {
    return refused(`policy: must be one of ${THREAD_POLICIES.join(', ')}, not ${shown(payload.policy)}`);
  }
  const hashProblem = optionalStringProblem('configHash', payload.configHash, ThreadMessageLimits.configHash);
  if (hashProblem) return refused(hashProblem);
  const parsedHashProblem = optionalStringProblem('parsedConfigHash', payload.parsedConfigHash, ThreadMessageLimits.configHash);
  if (parsedHashProblem) return refused(parsedHashProblem);
  return {
    ok: true,
    value: {
      messageId: payload.messageId as string,
      text: payload.text as string,
      ...(payload.policy ? { policy: payload.policy as ThreadPolicy } : {}),
      ...(typeof payload.configHash === 'string' ? { configHash: payload.configHash } : {}),
      ...(typeof payload.parsedConfigHash === 'string' ? { parsedConfigHash: payload.parsedConfigHash } : {}),
    },
  };
}

/** The argument of `closeThread`: absent, or an object with an optional `reason` (at most 1,000 characters). */
export function validateCloseRequest(payload: unknown): Validated<{ reason?: string }> {
  if (payload === undefined || payload === null) return { ok: true, value: {} };
  if (!isRecord(payload)) return refused(`a close request must be an object like { reason }, not ${shown(payload)}`);
  const extra = unknownField(payload, ['reason']);
  if (extra) return refused(extra);
  const problem = optionalStringProblem('reason', payload.reason, ThreadMessageLimits.closeReason);
  if (problem) return refused(problem);
  return { ok: true, value: typeof payload.reason === 'string' ? { reason: payload.reason } : {} };
}
