// The activity of a thread schedule's fire: sends its message into the thread (creating it when the schedule has a config).
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorCode } from '../protocol/errors';
import type { ThreadPostReceipt, ThreadPostRequest } from '../protocol/schedule-types';
import { sendMessageUpdate } from '../protocol/thread-messages';
import { threadStartAttributes } from '../protocol/thread-start-attributes';
import type { ThreadMessage, ThreadMessageReceipt } from '../protocol/thread-types';
import { WireName } from '../protocol/wire-names';

export interface ThreadPostDependencies {
  /** A client on the worker's namespace (the one model steps read conversations with). */
  threadPostClient: Client;
}

/**
 * Sends a schedule's message to its thread as `ThreadHandle.send` does: update-with-start when the
 * schedule prepared the thread's creation (a live thread takes the message, a missing one is
 * created by it), a plain update otherwise. Idempotent per fire: the update id and message id come
 * from the fire's workflow id, so a retry after a lost answer gets the first receipt (`duplicate`).
 * What the thread refuses for good (closed, another config, no thread) fails the fire with the
 * thread's code, non-retryable; anything else is retried by Temporal.
 */
export function createPostThreadMessage(dependencies: ThreadPostDependencies) {
  return async function postThreadMessage(request: ThreadPostRequest): Promise<ThreadPostReceipt> {
    const client = dependencies.threadPostClient;
    const { threadId, creation } = request;
    const message: ThreadMessage = {
      messageId: request.messageId,
      text: request.text,
      ...(request.configHash ? { configHash: request.configHash } : {}),
      ...(request.parsedConfigHash ? { parsedConfigHash: request.parsedConfigHash } : {}),
    };
    const updateId = `message-${message.messageId}`;
    let receipt: ThreadMessageReceipt;
    try {
      receipt = creation
        ? await client.workflow.executeUpdateWithStart(sendMessageUpdate, {
            args: [message],
            updateId,
            startWorkflowOperation: new WithStartWorkflowOperation(WireName.agentThreadWorkflow, {
              workflowId: threadId,
              taskQueue: request.taskQueue,
              args: [creation.input],
              // As ThreadHandle.send: a live thread takes the message, a closed one is never restarted empty.
              workflowIdConflictPolicy: 'USE_EXISTING',
              workflowIdReusePolicy: 'REJECT_DUPLICATE',
              typedSearchAttributes: threadStartAttributes(
                creation.input.config ?? { name: creation.input.agent!.name },
                creation.resourceId,
                new Date(),
              ),
              staticSummary: `thread ${threadId}: ${creation.input.config?.name ?? creation.input.agent?.name ?? ''}`,
            }),
          })
        : await client.workflow.getHandle(threadId).executeUpdate(sendMessageUpdate, { args: [message], updateId });
    } catch (error) {
      throw refusal(threadId, error) ?? error;
    }
    return { threadId, messageId: receipt.messageId, turn: receipt.turn, disposition: receipt.disposition, duplicate: receipt.duplicate };
  };
}

/** A refusal that another try would meet again, as a non-retryable failure with the thread's code; null for anything else. */
function refusal(threadId: string, error: unknown): ApplicationFailure | null {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    const type = error.cause.type;
    // A busy thread passes: it is retried (the same update id, so the message is taken once).
    if (type === ErrorCode.threadBusy) return null;
    return ApplicationFailure.nonRetryable(`thread ${threadId}: ${error.cause.message}`, type ?? ErrorCode.invalidMessage);
  }
  if (error instanceof WorkflowExecutionAlreadyStartedError || isCompleted(error))
    return ApplicationFailure.nonRetryable(
      `thread ${threadId} is closed: the schedule posts to a thread that no longer runs`,
      ErrorCode.threadClosed,
    );
  if (error instanceof WorkflowNotFoundError)
    return ApplicationFailure.nonRetryable(`no thread ${threadId}: give the schedule a config to create it`, ErrorCode.threadNotFound);
  return null;
}

function isCompleted(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (/workflow execution already completed/i.test(current.message)) return true;
  }
  return false;
}
