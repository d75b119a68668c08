// A thread's conversation read back: the messages its running or closed workflow holds, and the snapshot it continued from.
import type { WorkflowHandle } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { ConversationSnapshots } from '../artifacts/conversation-snapshots';
import { AgentConfigError, AgentRuntimeError, ErrorCode } from '../protocol/errors';
import type { Message } from '../protocol/messages';
import { conversationQuery } from '../protocol/run-messages';

/** Reads attempted when the conversation is rewritten (compacted) while it is being read. */
const READ_ATTEMPTS = 3;

/**
 * The thread's conversation as the model sees it (system prompt aside), oldest first, across every
 * continue-as-new: the `conversation` query on its newest execution (pages of messages; a closed
 * thread answers too, replayed by a worker), and for messages from before its last continue-as-new
 * the snapshot that execution started from, read in the artifact store. A conversation compacted
 * while it is read is read again (its earlier turns are then a summary, as the model sees them).
 * @throws AgentConfigError when the thread continued as new and no artifact store was given.
 */
export async function readThreadConversation(workflow: WorkflowHandle, artifacts: ArtifactStore | undefined): Promise<Message[]> {
  const snapshots = artifacts ? new ConversationSnapshots(artifacts) : undefined;
  for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
    const { epoch } = await workflow.query(conversationQuery, {});
    const messages: Message[] = [];
    for (;;) {
      const slice = await workflow.query(conversationQuery, { epoch, from: messages.length });
      if (slice.epoch !== epoch) break;
      if (slice.base) {
        if (!snapshots) {
          const problem = `artifacts: thread ${workflow.workflowId} continued as new; its earlier messages are a snapshot in the workers' artifact store: give the client that store (AgentClientOptions.artifacts)`;
          throw new AgentConfigError(problem, [problem]);
        }
        messages.push(...(await snapshots.read(slice.base)).slice(messages.length));
        continue;
      }
      if (slice.messages.length === 0) return messages;
      messages.push(...slice.messages);
    }
  }
  throw new AgentRuntimeError(
    ErrorCode.conversationUnavailable,
    `thread ${workflow.workflowId}: its conversation was rewritten ${READ_ATTEMPTS} times while it was read; try again`,
  );
}
