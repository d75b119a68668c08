import { ApplicationFailure } from '@temporalio/activity';
import type { CarriedConversation } from '../protocol/conversation-base';
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import type { LoadForkOriginInput } from '../protocol/fork-types';
import { lastAssistantText } from '../protocol/assistant-text';
import type { SaveConversationDependencies } from './save-conversation';
import { currentRunExecution } from './run-execution';
import { applyForkEdits } from './fork-edit-application';

/**
 * A fork's first activity: reads the origin's executor conversation up to the end of the forked
 * step (through the origin's `conversation` query, as a model step of the origin would, older
 * snapshots included) and writes it to the artifact store as the fork's conversation base. The
 * fork then holds it by reference, like a run that continued as new: its input and history never
 * carry a long conversation. A retry writes an equivalent snapshot. The fork's edits (a tool
 * result, a message) are applied to the messages before they are written.
 */
export function createLoadForkOrigin(dependencies: SaveConversationDependencies) {
  return async function loadForkOrigin(input: LoadForkOriginInput): Promise<CarriedConversation> {
    if (!dependencies.artifacts) {
      throw ApplicationFailure.nonRetryable(
        'Forking a run needs an artifact store on the worker (AGENT_ARTIFACT_STORE or AGENT_ARTIFACT_DIR)',
        ErrorCode.conversationUnavailable,
      );
    }
    let messages;
    try {
      ({ messages } = await dependencies.conversations.load(input.origin, input.conversation));
    } catch (error) {
      // The origin no longer holds that conversation (it compacted since the fork was planned): retrying cannot help.
      if (error instanceof AgentRuntimeError) throw ApplicationFailure.nonRetryable(error.message, error.code);
      throw error;
    }
    const kept = applyForkEdits(messages.slice(0, input.conversation.count), input.edits ?? []);
    const fork = currentRunExecution();
    const artifactId = await dependencies.artifacts.put(JSON.stringify(kept), {
      workflowId: fork.workflowId,
      toolName: 'conversation-snapshot',
      callId: `fork-of-${input.origin.runId}-${kept.length}`,
    });
    return { base: { artifactId, count: kept.length }, head: kept.slice(0, input.taskIndex + 1), lastAssistantText: lastAssistantText(kept) };
  };
}
