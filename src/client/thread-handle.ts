// A handle on one thread: send messages (creating the thread with the first), read it, close it.
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AgentConfigError, EmptyMessageError, ErrorCode, InvalidMessageError } from '../protocol/errors';
import type { Message } from '../protocol/messages';
import { closeThreadUpdate, sendMessageUpdate, threadQuery, ThreadMessageLimits } from '../protocol/thread-messages';
import { THREAD_CLOSED_POLICIES, THREAD_POLICIES, type ThreadMessage, type ThreadMessageReceipt, type ThreadStatus } from '../protocol/thread-types';
import { WireName } from '../protocol/wire-names';
import type { agentThread } from '../workflows/thread/agent-thread';
import { threadCreation, type ThreadCreation } from './thread-creation';
import { AgentNotFoundError } from '../protocol/agent-errors';
import { RunHandle } from './run-handle';
import { transientServerError } from './decision-delivery';
import { checkedCloseRequest, checkedThreadMessage } from './outgoing-checks';
import { describeThread, endedFromOutside, threadReadError, withOutsideEnd } from './thread-lookup';
import { threadSendError } from './thread-send-error';
import { readThreadConversation } from './thread-conversation';
import { readThreadTranscript } from './thread-history';
import type { ThreadTranscript } from '../history/thread-transcript';
import { deleteThread, type ThreadDeletion } from './thread-deletion';
import { reopenThread } from './thread-reopen';
import { isClosedError, TurnHandle } from './turn-handle';

/** How long `send` keeps trying a busy thread or a restarting server. */
const SEND_RETRY_MS = 60_000;

import type { SendOptions, ThreadOptions, ThreadTarget } from './thread-options';

export type { SendOptions, ThreadOptions, ThreadTarget };

/**
 * One durable conversation, addressed by the id you chose (`support:customer-42`). `send` creates
 * the thread with its first message, atomically (update-with-start: two first messages sent at
 * once make one thread that answers both), and returns a `TurnHandle` on the turn that answers it.
 * Get one from `AgentClient.thread(id, options)`.
 * @example
 * const thread = agents.thread('support:customer-42', { config: { name: 'support', model: 'openai:gpt-4o-mini' }, resourceId: 'customer-42' });
 * const first = await thread.send('Where is my order?');
 * console.log((await first.result()).output);
 * const second = await thread.send('And can I change the address?');
 * console.log((await second.result()).output);
 */
export class ThreadHandle {
  /** The thread's run handle: events, status, approvals and live text of its running turn. */
  readonly run: RunHandle;

  constructor(
    private readonly target: ThreadTarget,
    readonly threadId: string,
    private readonly options: ThreadOptions = {},
  ) {
    if (!threadId.trim() || threadId.length > ThreadMessageLimits.messageId) {
      throw new InvalidMessageError(
        `threadId: must be 1 to ${ThreadMessageLimits.messageId} characters, not ${JSON.stringify(threadId.slice(0, 40))}`,
      );
    }
    if (options.policy !== undefined && !THREAD_POLICIES.includes(options.policy)) {
      throw new AgentConfigError(`policy: must be one of ${THREAD_POLICIES.join(', ')}`, [
        `policy: must be one of ${THREAD_POLICIES.join(', ')}, not ${JSON.stringify(options.policy)}`,
      ]);
    }
    if (options.whenClosed !== undefined && !THREAD_CLOSED_POLICIES.includes(options.whenClosed)) {
      const problem = `whenClosed: must be one of ${THREAD_CLOSED_POLICIES.join(', ')}, not ${JSON.stringify(options.whenClosed)}`;
      throw new AgentConfigError(problem, [problem]);
    }
    this.run = new RunHandle(target.temporal, target.temporal.workflow.getHandle(threadId), target.webUiUrl(threadId));
  }

  /**
   * Sends a user message. With a `config` in the thread's options, a thread that does not exist
   * yet is created by this message; without one, the thread must exist.
   * @throws EmptyMessageError for blank text; InvalidMessageError for text over 100,000 characters
   * (or another field the thread would refuse); PayloadTooLargeError for a creating config and
   * messages over 1 MB of JSON; AgentConfigError for an invalid config;
   * ThreadError with code `ThreadBusy` (policy `reject` while a turn runs), `ThreadClosed`,
   * `ThreadConfigMismatch` or `ThreadNotFound`; SearchAttributesMissingError on a namespace
   * without `durable-agents setup`. Nothing is added to the thread when it throws.
   */
  async send(text: string, options: SendOptions = {}): Promise<TurnHandle> {
    if (typeof text === 'string' && !text.trim()) throw new EmptyMessageError('thread');
    const creates = this.options.config !== undefined || this.options.agent !== undefined;
    const created = creates ? await this.checkedCreation() : null;
    const message = checkedThreadMessage({
      messageId: options.messageId ?? randomUUID(),
      text,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(created
        ? { configHash: created.input.configHash, ...(created.parsedConfigHash ? { parsedConfigHash: created.parsedConfigHash } : {}) }
        : {}),
    });
    const updateId = `message-${message.messageId}`;
    const startedAt = Date.now();
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
      try {
        return await this.deliver(message, updateId, created);
      } catch (error) {
        // A busy thread (the server limits updates in flight per workflow) or a restarting server:
        // the same update id again, so a retry never adds the message twice.
        if (Date.now() - startedAt > SEND_RETRY_MS || !(await this.isTransient(error)))
          throw await threadSendError(this.target, this.threadId, error, created !== null);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  /** One try of a send; a closed thread that reopens gets the message in a new execution. */
  private async deliver(message: ThreadMessage, updateId: string, created: ThreadCreation | null): Promise<TurnHandle> {
    try {
      return new TurnHandle(this.run, await this.deliverToOpen(message, updateId, created));
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError || isClosedError(error))) throw error;
      const reopened = await reopenThread(this.target.temporal, this.threadId, message, updateId);
      if (!reopened) throw error;
      return new TurnHandle(this.run, reopened);
    }
  }

  /** Update-with-start when the thread may be created, a plain update otherwise. */
  private async deliverToOpen(message: ThreadMessage, updateId: string, created: ThreadCreation | null): Promise<ThreadMessageReceipt> {
    if (!created) return this.run.workflow.executeUpdate(sendMessageUpdate, { args: [message], updateId });
    return await this.target.temporal.workflow.executeUpdateWithStart(sendMessageUpdate, {
      args: [message],
      updateId,
      startWorkflowOperation: new WithStartWorkflowOperation<typeof agentThread>(WireName.agentThreadWorkflow, {
        workflowId: this.threadId,
        taskQueue: this.target.taskQueue,
        args: [created.input],
        // A live thread takes the message; a closed one is never restarted empty (one whose
        // whenClosed is reopen is continued by reopenThread).
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: created.attributes,
        staticSummary: `thread ${this.threadId}: ${created.agentName}`,
      }),
    });
  }

  /**
   * Whether a failed send is worth sending again: a transient server error, or an update-with-start
   * the server could not execute while the thread runs (too many updates in flight at once).
   */
  private async isTransient(error: unknown): Promise<boolean> {
    if (transientServerError(error) !== null) return true;
    // A thread that reopens, refusing in its last moments of closing: once closed, the next try
    // reopens it with this message (the refusal recorded nothing, so it is sent once).
    if (isClosingToReopen(error)) return true;
    if (!(error instanceof Error) || !/Update-with-Start could not be executed|in-flight updates/i.test(error.message)) return false;
    return this.run.workflow.describe().then(
      (description) => description.status.name === 'RUNNING',
      () => false,
    );
  }

  /**
   * The creation of the thread, or null to write to it as it is: a named agent the workers do not
   * offer creates nothing (`AgentNotFound`), but a thread that exists already takes the message
   * (it keeps the version it has when its workers no longer offer its agent).
   */
  private async checkedCreation(): Promise<ThreadCreation | null> {
    const creation = threadCreation(this.options);
    if (!creation.reference || !this.target.workerAgents) return creation;
    try {
      await this.target.workerAgents.assertOffered(this.target.taskQueue, creation.reference);
      return creation;
    } catch (error) {
      if (!(error instanceof AgentNotFoundError)) throw error;
      const exists = await describeThread(this.target.temporal, this.threadId).then(
        (description) => description.status.name === 'RUNNING',
        () => false,
      );
      if (exists) return null;
      throw error;
    }
  }

  /**
   * The thread now (phase, queued messages, the newest turns' results), through the `thread` query.
   * A thread ended from outside (terminated, or being deleted) is `closed`, with `closedReason`
   * saying so (`terminated: thread deleted`), though its own state stopped in the middle of a turn.
   * @throws ThreadError `ThreadNotFound` for an id with no thread (or a workflow that is not one).
   */
  async status(): Promise<ThreadStatus> {
    const { temporal } = this.target;
    const [description, status] = await Promise.allSettled([describeThread(temporal, this.threadId), this.run.workflow.query(threadQuery)]);
    if (description.status === 'rejected') throw description.reason;
    if (status.status === 'rejected') throw await threadReadError(temporal, this.threadId, status.reason);
    return withOutsideEnd(status.value, await endedFromOutside(temporal, description.value));
  }

  /** A handle on turn `turn` of this thread (for example after a restart of your process). */
  turn(turn: number): TurnHandle {
    return new TurnHandle(this.run, { messageId: '', turn, disposition: 'queued', duplicate: false, eventCursor: 0 });
  }

  /**
   * Closes the thread once its running and queued turns are done; later messages are refused
   * with `ThreadClosed`, or, when its `whenClosed` is `reopen`, answered: one that arrives before
   * the thread closed withdraws the close, one after reopens it. Returns the turns completed when
   * the close was accepted.
   * @throws ThreadError `ThreadNotFound` for an id with no thread (or a workflow that is not one);
   * InvalidMessageError for a reason over 1,000 characters, before anything is sent.
   */
  async close(reason?: string): Promise<{ turnsCompleted: number }> {
    const request = checkedCloseRequest(reason ? { reason } : {});
    try {
      return await this.run.workflow.executeUpdate(closeThreadUpdate, { args: [request] });
    } catch (error) {
      throw await threadSendError(this.target, this.threadId, error, false);
    }
  }

  /**
   * The conversation so far, oldest first (the system prompt aside), across every continue-as-new:
   * what the thread's workflow holds (its `conversation` query; a closed thread is read by a worker
   * replaying it) and the snapshot it continued from (the client's artifact store).
   * @throws AgentConfigError when the thread continued as new and the client has no artifact store;
   * ThreadError `ThreadNotFound` for an id with no thread (or a workflow that is not one).
   * @example
   * for (const message of await agents.thread('support:customer-42').messages()) console.log(message.role, message.content);
   */
  async messages(): Promise<Message[]> {
    await describeThread(this.target.temporal, this.threadId);
    return readThreadConversation(this.run.workflow, this.target.artifacts).catch(async (error: unknown) => {
      throw await threadReadError(this.target.temporal, this.threadId, error);
    });
  }

  /**
   * The thread's history turn by turn (what `durable-agents history <thread>` prints): each turn's
   * messages (injected ones marked), steps, tool calls and approvals, and its result, across its
   * continue-as-new executions (the newest 100).
   * @throws ThreadError `ThreadNotFound` for an id with no thread (or a workflow that is not one).
   * @example
   * const { turns } = await agents.thread('support:customer-42').history();
   * for (const turn of turns) console.log(turn.turn, turn.messages[0]?.text, turn.result?.stopReason);
   */
  history(): Promise<ThreadTranscript> {
    return readThreadTranscript(this.target.temporal, this.threadId);
  }

  /**
   * Deletes the thread: terminates it if open, deletes its own conversation snapshots from the
   * client's artifact store, then every workflow execution of it
   * and of its sub-agents. Safe to run again after an interruption; Temporal's visibility may list
   * it for a moment longer (docs/threads.md, "Deleting a thread").
   * @throws AgentConfigError without an artifact store that can delete; ThreadError `ThreadNotFound`
   * for an id with no thread (or one deleted already).
   * @example
   * const { artifacts, workflowExecutions } = await agents.thread('support:customer-42').delete();
   */
  delete(): Promise<ThreadDeletion> {
    return deleteThread(this.target, this.threadId);
  }
}

/** The refusal of a thread whose `whenClosed` is `reopen`, in its last moments of closing (`details: [{ reopens: true }]`). */
function isClosingToReopen(error: unknown): boolean {
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure)) return false;
  const [details] = error.cause.details ?? [];
  return error.cause.type === ErrorCode.threadClosed && (details as { reopens?: unknown } | undefined)?.reopens === true;
}
