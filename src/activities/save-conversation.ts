import type { ArtifactStore } from '../artifacts/artifact-store';
import type { ConversationBase } from '../protocol/conversation-base';
import type { ConversationRef } from '../protocol/run-types';
import type { ConversationSource } from './conversation-source';
import { currentRunExecution } from './run-execution';

export interface SaveConversationDependencies {
  conversations: ConversationSource;
  artifacts?: ArtifactStore;
}

/**
 * Before a run continues as new: writes its whole executor conversation (read like a model step
 * reads it, older snapshots included) to the artifact store as one JSON snapshot, and returns the
 * reference the continued run carries instead of the messages. Writing the same conversation
 * twice (a retry) gives an equivalent snapshot.
 */
export function createSaveConversation(dependencies: SaveConversationDependencies) {
  return async function saveConversation(input: { conversation: ConversationRef }): Promise<ConversationBase> {
    if (!dependencies.artifacts) throw new Error('Continuing a long run as new needs an artifact store on the worker');
    const execution = currentRunExecution();
    const { messages } = await dependencies.conversations.load(execution, input.conversation);
    const artifactId = await dependencies.artifacts.put(JSON.stringify(messages), {
      workflowId: execution.workflowId,
      toolName: 'conversation-snapshot',
      callId: `${execution.runId}-${messages.length}`,
    });
    return { artifactId, count: messages.length };
  };
}
