// A fork's edits applied to the origin's messages, each checked against the message it replaces.
import { ApplicationFailure } from '@temporalio/activity';
import { describeForkEdit } from '../protocol/fork-edit-description';
import { ErrorCode } from '../protocol/errors';
import type { ForkEdit } from '../protocol/fork-types';
import type { Message } from '../protocol/messages';

/**
 * The messages with each edit's content in place of the message it names. The client resolved
 * the positions from the origin's history; a message that is not what the edit expects there (a
 * role, a call id) fails the fork for good rather than editing another message. Pure.
 * @throws ApplicationFailure `ForkEditInvalid` (non-retryable) when an edit's message is not there.
 */
export function applyForkEdits(messages: readonly Message[], edits: readonly ForkEdit[]): Message[] {
  const edited = [...messages];
  for (const edit of edits) {
    if (edit.kind === 'tool-result' && edit.pending) {
      addPendingResult(edited, edit);
      continue;
    }
    const index = edit.kind === 'tool-result' ? toolMessageIndex(edited, edit) : edit.index;
    const message = edited[index];
    const expected = edit.kind === 'tool-result' ? 'tool' : edit.role;
    if (!message || message.role !== expected) {
      throw ApplicationFailure.nonRetryable(
        `Cannot edit ${describeForkEdit(edit)}: message ${index} of the origin's conversation is ${message ? `a ${message.role} message` : 'missing'}, not a ${expected} message`,
        ErrorCode.forkEditInvalid,
      );
    }
    edited[index] =
      edit.kind === 'tool-result' && message.role === 'tool'
        ? { ...message, content: edit.content, isError: edit.isError }
        : { ...message, content: edit.content };
  }
  return edited;
}

/** The result of the edit's call among the messages after its step's reply (at `edit.index`), before the next reply. */
function toolMessageIndex(messages: readonly Message[], edit: Extract<ForkEdit, { kind: 'tool-result' }>): number {
  for (let index = edit.index + 1; index < messages.length && messages[index]!.role !== 'assistant'; index++) {
    const message = messages[index]!;
    if (message.role === 'tool' && message.toolCallId === edit.callId) return index;
  }
  return messages.length;
}

/**
 * A result the origin's call never had: the conversation ends at the step's reply (or at results
 * added before), and the result is added there, after the reply that made the call.
 */
function addPendingResult(messages: Message[], edit: Extract<ForkEdit, { kind: 'tool-result' }>): void {
  const reply = messages[edit.index];
  const trailing = messages.slice(edit.index + 1);
  if (
    reply?.role !== 'assistant' ||
    !reply.toolCalls.some((call) => call.id === edit.callId) ||
    trailing.some((message) => message.role !== 'tool')
  ) {
    throw ApplicationFailure.nonRetryable(
      `Cannot add ${describeForkEdit(edit)}: message ${edit.index} of the origin's conversation is not the reply that made the call, last in the conversation`,
      ErrorCode.forkEditInvalid,
    );
  }
  messages.push({ role: 'tool', toolCallId: edit.callId, toolName: edit.tool, content: edit.content, isError: edit.isError });
}
