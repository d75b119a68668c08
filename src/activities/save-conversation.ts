// The activity that stores a run's conversation before it continues as new, writing only what was added since its base.
import type { ArtifactStore } from '../artifacts/artifact-store';
import { ConversationSnapshots } from '../artifacts/conversation-snapshots';
import type { ConversationBase } from '../protocol/conversation-base';
import type { ConversationRef, StoredToolResults } from '../protocol/run-types';
import { storeToolResults, type StoreToolResultsInput } from './carried-tool-results';
import type { ConversationSource } from './conversation-source';
import { currentRunExecution } from './run-execution';

export interface SaveConversationDependencies {
  conversations: ConversationSource;
  artifacts?: ArtifactStore;
}

/**
 * Before a run continues as new: stores its executor conversation (read like a model step reads
 * it, older snapshots included) in the artifact store, and returns the reference the continued
 * run carries instead of the messages. When the run itself continued from a snapshot and no
 * compaction rewrote the conversation since, only the messages added since that snapshot are
 * written (a segment) with a small index naming the earlier parts, so a chain of continued runs
 * stores each message once. Writing the same conversation twice (a retry) gives an equivalent
 * snapshot. Given `toolResults`, it also stores the
 * run's newest tool results, so the continued run carries a reference instead of copies.
 */
export function createSaveConversation(dependencies: SaveConversationDependencies) {
  const snapshots = dependencies.artifacts ? new ConversationSnapshots(dependencies.artifacts) : undefined;
  return async function saveConversation(input: {
    conversation: ConversationRef;
    toolResults?: StoreToolResultsInput;
  }): Promise<ConversationBase & { toolResults?: StoredToolResults }> {
    if (!snapshots || !dependencies.artifacts) throw new Error('Continuing a long run as new needs an artifact store on the worker');
    const execution = currentRunExecution();
    const { messages, base } = await dependencies.conversations.load(execution, input.conversation);
    const saved = await snapshots.write(messages, base, { workflowId: execution.workflowId, callId: `${execution.runId}-${messages.length}` });
    return input.toolResults ? { ...saved, toolResults: await storeToolResults(dependencies.artifacts, input.toolResults) } : saved;
  };
}
