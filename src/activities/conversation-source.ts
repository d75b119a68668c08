import type { Client } from '@temporalio/client';
import { ErrorCode } from '../protocol/errors';
import type { Message } from '../protocol/messages';
import { conversationQuery } from '../protocol/run-messages';
import type { ConversationRef } from '../protocol/run-types';
import { AgentRuntimeError } from '../protocol/errors';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { ConversationSnapshots } from '../artifacts/conversation-snapshots';
import type { ConversationBase } from '../protocol/conversation-base';

export interface RunExecution {
  workflowId: string;
  runId: string;
}

export interface Conversation {
  system: string;
  messages: Message[];
  /** The snapshot the first `base.count` messages came from (a run that continued as new, same epoch), when known. */
  base?: ConversationBase;
}

/** Resolves a conversation reference to the messages a model step needs. */
export interface ConversationSource {
  load(execution: RunExecution, ref: ConversationRef): Promise<Conversation>;
}

interface CachedConversation {
  epoch: number;
  /** The revision the messages and system prompt belong to (from a reference or a query answer). */
  revision?: number;
  system?: string;
  messages: Message[];
  /** The run's base in this epoch, when a query answer named it. */
  base?: ConversationBase;
}

/**
 * Reads a run's conversation for its model steps, so the model step's input (and so the history)
 * never carries it. Messages already read by this worker are cached per run: when the step's
 * reference carries the messages added since the previous step (`recent`, small ones only) and
 * this worker holds the rest and the system prompt (or the reference brings it), nothing is asked
 * of the run. Otherwise the `conversation` query on
 * the run brings what is missing; a run that continued as new answers with where its older
 * messages are (a snapshot in the artifact store); long answers come in pages.
 */
export class QueryConversationSource implements ConversationSource {
  private readonly cache = new Map<string, CachedConversation & { characters: number }>();
  private cachedCharacters = 0;
  private readonly snapshots?: ConversationSnapshots;

  /**
   * @param maxCachedRuns conversations kept (one per run and thread), least recently used out first
   * @param maxCachedCharacters about how much text they may hold in all (64 M characters ≈ 64–128 MB)
   */
  constructor(
    private readonly client: Client,
    artifacts?: ArtifactStore,
    private readonly maxCachedRuns = 2_000,
    private readonly maxCachedCharacters = 64_000_000,
    snapshots?: ConversationSnapshots,
  ) {
    this.snapshots = snapshots ?? (artifacts ? new ConversationSnapshots(artifacts) : undefined);
  }

  async load(execution: RunExecution, ref: ConversationRef): Promise<Conversation> {
    const key = `${execution.runId}:${ref.thread ?? 'executor'}`;
    const cached = this.cache.get(key);
    const conversation = completeFromCache(cached, ref) ?? (await this.query(execution, ref, cached));
    this.remember(key, conversation);
    return { system: conversation.system ?? '', messages: conversation.messages, ...(conversation.base ? { base: conversation.base } : {}) };
  }

  /** Reads what the cache lacks through the `conversation` query: at least one (it brings the current system prompt), then pages. */
  private async query(execution: RunExecution, ref: ConversationRef, cached: CachedConversation | undefined): Promise<CachedConversation> {
    const stale =
      !cached || cached.epoch !== ref.epoch || cached.messages.length > ref.count || (ref.revision !== undefined && cached.revision !== ref.revision);
    let messages = stale ? [] : cached.messages;
    let revision = stale ? undefined : cached.revision;
    let base = stale ? undefined : cached.base;
    const handle = this.client.workflow.getHandle(execution.workflowId, execution.runId);
    for (;;) {
      const from = messages.length;
      const slice = await handle.query(conversationQuery, {
        ...(ref.thread ? { thread: ref.thread } : {}),
        epoch: ref.epoch,
        from,
        count: ref.count,
      });
      if (slice.epoch !== ref.epoch || slice.from !== from) {
        throw new AgentRuntimeError(
          ErrorCode.conversationUnavailable,
          `Run ${execution.runId} answered conversation epoch ${slice.epoch} from ${slice.from}; the step needs epoch ${ref.epoch} from ${from}`,
        );
      }
      if (from > 0 && revision !== undefined && slice.revision !== revision) {
        // A message was rewritten since the cached ones were read: read them all again.
        messages = [];
        revision = slice.revision;
        continue;
      }
      revision = slice.revision;
      if (slice.base) base = slice.base;
      const added = slice.base ? (await this.snapshot(slice.base)).slice(from, slice.base.count) : slice.messages;
      messages = messages.concat(added);
      if (messages.length >= ref.count) return { epoch: ref.epoch, revision, system: slice.system, messages, ...(base ? { base } : {}) };
      if (added.length === 0) {
        throw new AgentRuntimeError(
          ErrorCode.conversationUnavailable,
          `Run ${execution.runId} has no conversation messages from ${from} (the step needs ${ref.count})`,
        );
      }
    }
  }

  /**
   * The messages of the conversation snapshot a run continued from. Read once per run and worker
   * (the run's cached conversation holds them afterwards); its segments once per worker.
   */
  private async snapshot(base: ConversationBase): Promise<Message[]> {
    if (!this.snapshots)
      throw new AgentRuntimeError(
        ErrorCode.conversationUnavailable,
        `Conversation snapshot ${base.artifactId} needs an artifact store on this worker`,
      );
    return this.snapshots.read(base);
  }

  /** Keeps the run's conversation as the newest entry, then drops the oldest beyond either bound. */
  private remember(key: string, conversation: CachedConversation): void {
    const previous = this.cache.get(key);
    if (previous) this.cachedCharacters -= previous.characters;
    this.cache.delete(key);
    const entry = { ...conversation, characters: approximateCharacters(conversation.messages, previous) };
    this.cache.set(key, entry);
    this.cachedCharacters += entry.characters;
    for (const [oldestKey, oldest] of this.cache) {
      if (this.cache.size <= this.maxCachedRuns && this.cachedCharacters <= this.maxCachedCharacters) break;
      this.cache.delete(oldestKey);
      this.cachedCharacters -= oldest.characters;
    }
  }
}

/**
 * The conversation from this worker's cache plus what the reference carries (the newest messages,
 * and the system prompt when it changed), or undefined when they don't make it whole: another
 * worker ran the previous step, a new epoch or revision, nothing cached, or an input recorded
 * before references carried revisions.
 */
function completeFromCache(cached: CachedConversation | undefined, ref: ConversationRef): CachedConversation | undefined {
  if (ref.revision === undefined) return undefined;
  const current = cached !== undefined && cached.epoch === ref.epoch && cached.revision === ref.revision ? cached : undefined;
  const system = ref.system ?? current?.system;
  if (system === undefined) return undefined;
  const held = current?.messages ?? [];
  const recent = ref.recent ?? [];
  const firstRecent = ref.count - recent.length;
  // The cache may already hold some of `recent` (this step's earlier attempt appended them).
  if (held.length < firstRecent || held.length > ref.count) return undefined;
  const messages = held.length === ref.count ? held : held.concat(recent.slice(held.length - firstRecent));
  return { epoch: ref.epoch, revision: ref.revision, system, messages, ...(current?.base ? { base: current.base } : {}) };
}

/** About how many characters the messages hold; counts only the messages added since `previous` when it is the same epoch. */
function approximateCharacters(messages: Message[], previous: (CachedConversation & { characters: number }) | undefined): number {
  const reuse = previous !== undefined && previous.messages.length <= messages.length && previous.messages[0] === messages[0];
  let characters = reuse ? previous.characters : 0;
  for (const message of messages.slice(reuse ? previous.messages.length : 0)) {
    // The content, plus the call's arguments and the fields around it.
    characters += message.content.length + 100 + (message.role === 'assistant' ? JSON.stringify(message.toolCalls).length : 0);
  }
  return characters;
}
