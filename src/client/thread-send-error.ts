// The typed error for a message or a close a thread did not take: refused by the thread, closed, or no thread at all.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { EmptyMessageError, ErrorCode, InvalidMessageError, ThreadError } from '../protocol/errors';
import { searchAttributesMissing } from './search-attribute-errors';
import type { ThreadTarget } from './thread-options';
import { describeThread } from './thread-lookup';
import { isClosedError } from './turn-handle';

/**
 * The typed error for a failed send (`creating`: one that could create the thread) or close of
 * thread `threadId`: the thread's refusal by its stable type, `ThreadClosed`, `ThreadNotFound`
 * (no thread, or a workflow that is not one), or `error` itself when it is none of these.
 */
export async function threadSendError(target: ThreadTarget, threadId: string, error: unknown, creating: boolean): Promise<unknown> {
  const missing = searchAttributesMissing(error, target.namespace);
  if (missing) return missing;
  const closed = () => new ThreadError(ErrorCode.threadClosed, threadId, `thread ${threadId} is closed: start a new thread (another id)`);
  if (error instanceof WorkflowUpdateFailedError) {
    const type = (error.cause as { type?: string } | undefined)?.type;
    const reason = error.cause?.message ?? error.message;
    if (type === ErrorCode.emptyMessage) return new EmptyMessageError('thread');
    if (type === ErrorCode.threadBusy || type === ErrorCode.threadClosed || type === ErrorCode.threadConfigMismatch)
      return new ThreadError(type, threadId, `thread ${threadId}: ${reason}`);
    // A workflow that is not a thread has no handler for the update.
    const notThread = await describeThread(target.temporal, threadId).then(
      () => null,
      (lookup: unknown) => (lookup instanceof ThreadError ? lookup : null),
    );
    return notThread ?? new InvalidMessageError(reason);
  }
  if (error instanceof WorkflowExecutionAlreadyStartedError || (creating && isClosedError(error))) return closed();
  if (error instanceof WorkflowNotFoundError || isClosedError(error)) {
    if (creating) return closed();
    // A thread that closed still has its last execution (until the namespace's retention).
    const lookup = await describeThread(target.temporal, threadId).then(
      () => null,
      (failure: unknown) => failure,
    );
    if (lookup === null) return closed();
    if (lookup instanceof ThreadError && lookup.message.includes('not a thread')) return lookup;
    return new ThreadError(ErrorCode.threadNotFound, threadId, `no thread ${threadId}: give a config (agents.thread(id, { config })) to create it`);
  }
  return error;
}
