import type { Client } from '@temporalio/client';
import { ErrorCode } from '../shared/errors';
import type { Message } from '../shared/messages';
import { conversationQuery } from '../shared/run-messages';
import type { ConversationRef } from '../shared/run-types';
import { AgentRuntimeError } from '../shared/errors';

export interface RunExecution {
  workflowId: string;
  runId: string;
}

export interface Conversation {
  system: string;
  messages: Message[];
}

/** Resolves a conversation reference to the messages a model step needs. */
export interface ConversationSource {
  load(execution: RunExecution, ref: ConversationRef): Promise<Conversation>;
}

interface CachedConversation {
  epoch: number;
  messages: Message[];
}

/**
 * Reads a run's conversation through the `conversation` query on the run itself, so the model
 * step's input (and so the history) never carries it. Messages already fetched by this worker are
 * cached per run, so each step fetches only the messages added since the previous step.
 */
export class QueryConversationSource implements ConversationSource {
  private readonly cache = new Map<string, CachedConversation>();

  constructor(
    private readonly client: Client,
    private readonly maxCachedRuns = 500,
  ) {}

  async load(execution: RunExecution, ref: ConversationRef): Promise<Conversation> {
    const thread = ref.thread ?? 'executor';
    const key = `${execution.runId}:${thread}`;
    let cached = this.cache.get(key);
    if (!cached || cached.epoch !== ref.epoch || cached.messages.length > ref.count) {
      cached = { epoch: ref.epoch, messages: [] };
    }
    const slice = await this.client.workflow
      .getHandle(execution.workflowId, execution.runId)
      .query(conversationQuery, { ...(ref.thread ? { thread: ref.thread } : {}), epoch: ref.epoch, from: cached.messages.length, count: ref.count });
    if (slice.epoch !== ref.epoch || slice.from !== cached.messages.length) {
      throw new AgentRuntimeError(
        ErrorCode.conversationUnavailable,
        `Run ${execution.runId} answered conversation epoch ${slice.epoch} from ${slice.from}; the step needs epoch ${ref.epoch} from ${cached.messages.length}`,
      );
    }
    const messages = cached.messages.concat(slice.messages);
    this.remember(key, { epoch: ref.epoch, messages });
    return { system: slice.system, messages };
  }

  private remember(key: string, conversation: CachedConversation): void {
    this.cache.delete(key);
    this.cache.set(key, conversation);
    if (this.cache.size > this.maxCachedRuns) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }
}
