// Reopens a closed thread whose `whenClosed` is `reopen`: a new execution of its id, started by the next message.
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { AgentLastActivityAttribute, AgentStatusAttribute } from '../protocol/search-attributes';
import { sendMessageUpdate } from '../protocol/thread-messages';
import type { ThreadMessage, ThreadMessageReceipt, ThreadResult } from '../protocol/thread-types';
import { WireName } from '../protocol/wire-names';
import type { agentThread } from '../workflows/thread/agent-thread';

/**
 * Delivers `message` to thread `threadId` whose latest execution is no longer running: when it
 * closed with `reopenWith` (its `whenClosed` is `reopen`), by update-with-start of a new execution
 * of the same id from that input (its conversation, turn numbers, remembered message ids and
 * settings), on the thread's own task queue. Returns null when the thread does not reopen (it
 * refuses, failed, was terminated, or does not exist): the caller's `ThreadClosed` stands.
 *
 * Atomic for concurrent senders: the start allows a new execution of a closed id
 * (`ALLOW_DUPLICATE`) but joins a running one (`USE_EXISTING`), so two messages sent at once to a
 * closed thread start one execution, which answers both. One window is left: a sender that read
 * the closed result, while another reopened the thread and that execution closed again before
 * this start arrived, starts from the older state (the second closing needs a turn answered and a
 * close in between, so this is milliseconds against a model call).
 */
export async function reopenThread(
  temporal: Client,
  threadId: string,
  message: ThreadMessage,
  updateId: string,
): Promise<ThreadMessageReceipt | null> {
  const latest = temporal.workflow.getHandle(threadId);
  const description = await latest.describe().catch(() => null);
  if (!description) return null;
  // Another sender reopened it a moment ago: the message goes to that execution.
  if (description.status.name === 'RUNNING') return latest.executeUpdate(sendMessageUpdate, { args: [message], updateId });
  if (description.status.name !== 'COMPLETED') return null;
  const closed = (await temporal.workflow.getHandle(threadId, description.runId).result()) as ThreadResult;
  if (!closed.reopenWith) return null;
  const updates: SearchAttributeUpdatePair[] = [{ key: AgentStatusAttribute, value: 'idle' }];
  // Only where the thread had it: its namespace may have been set up before the attribute.
  if (description.typedSearchAttributes.get(AgentLastActivityAttribute) !== undefined)
    updates.push({ key: AgentLastActivityAttribute, value: new Date() });
  return temporal.workflow.executeUpdateWithStart(sendMessageUpdate, {
    args: [message],
    updateId,
    startWorkflowOperation: new WithStartWorkflowOperation<typeof agentThread>(WireName.agentThreadWorkflow, {
      workflowId: threadId,
      taskQueue: description.taskQueue,
      args: [closed.reopenWith],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      typedSearchAttributes: description.typedSearchAttributes.updateCopy(updates).getAll(),
      staticSummary: `thread ${threadId}: ${closed.reopenWith.config?.name ?? closed.reopenWith.agent?.name ?? ''} (reopened)`,
    }),
  });
}
