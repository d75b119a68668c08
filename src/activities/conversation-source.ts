import type { Client } from '@temporalio/client';
import { ErrorCode } from '../shared/errors';
import type { Message } from '../shared/messages';
import { conversationQuery } from '../shared/run-messages';
import type { ConversationRef } from '../shared/run-types';
import { AgentRuntimeError } from '../shared/errors';
import type { ArtifactStore } from '../artifacts/artifact-store';
import type { ConversationBase } from '../shared/conversation-base';


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
 * cached per run, so each step fetches only the messages added since the previous step. A run
 * that continued as new answers with where its older messages are (a snapshot in the artifact
 * store); long answers come in pages.
 */
export class QueryConversationSource implements ConversationSource {
  private readonly cache = new Map<string, CachedConversation>();

  constructor(
    private readonly client: Client,
    private readonly artifacts?: ArtifactStore,
    private readonly maxCachedRuns = 500,
  ) {}

  async load(execution: RunExecution, ref: ConversationRef): Promise<Conversation> {
    const thread = ref.thread ?? 'executor';
    const key = `${execution.runId}:${thread}`;
    let cached = this.cache.get(key);
    if (!cached || cached.epoch !== ref.epoch || cached.messages.length > ref.count) {
      cached = { epoch: ref.epoch, messages: [] };
    }
    const handle = this.client.workflow.getHandle(execution.workflowId, execution.runId);
    let messages = cached.messages;
    let system = '';
    // At least one query (it also brings the current system prompt), then pages until complete.
    for (;;) {
      const from = messages.length;
      const slice = await handle.query(conversationQuery, { ...(ref.thread ? { thread: ref.thread } : {}), epoch: ref.epoch, from, count: ref.count });
      if (slice.epoch !== ref.epoch || slice.from !== from) {
        throw new AgentRuntimeError(
          ErrorCode.conversationUnavailable,
          `Run ${execution.runId} answered conversation epoch ${slice.epoch} from ${slice.from}; the step needs epoch ${ref.epoch} from ${from}`,
        );
      }
      system = slice.system;
      const added = slice.base ? (await this.snapshot(slice.base)).slice(from, slice.base.count) : slice.messages;
      messages = messages.concat(added);
      if (messages.length >= ref.count) break;
      if (added.length === 0) {
        throw new AgentRuntimeError(ErrorCode.conversationUnavailable, `Run ${execution.runId} has no conversation messages from ${from} (the step needs ${ref.count})`);
      }
    }
    this.remember(key, { epoch: ref.epoch, messages });
    return { system, messages };
  }

  /**
   * The messages of the conversation snapshot a run continued from. Read once per run and worker:
   * the run's cached conversation holds them afterwards.
   */
  private async snapshot(base: ConversationBase): Promise<Message[]> {
    if (!this.artifacts) throw new AgentRuntimeError(ErrorCode.conversationUnavailable, `Conversation snapshot ${base.artifactId} needs an artifact store on this worker`);
    const { content } = await this.artifacts.read(base.artifactId);
    const messages = JSON.parse(content) as Message[];
    if (messages.length < base.count) {
      throw new AgentRuntimeError(ErrorCode.conversationUnavailable, `Conversation snapshot ${base.artifactId} has ${messages.length} messages; the run continued from ${base.count}`);
    }
    return messages;
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
