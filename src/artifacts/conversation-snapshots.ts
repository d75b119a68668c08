// Conversation snapshots stored as append-only segments plus small indexes (each naming its workflow), so a chain of continued runs stores and reads each message once.
import type { ConversationBase } from '../protocol/conversation-base';
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import type { Message } from '../protocol/messages';
import type { ArtifactStore } from './artifact-store';

/** Told apart from a segment (a JSON array of messages) on read: an index is a JSON object with this `format`. */
export const CONVERSATION_INDEX_FORMAT = 'durable-agents.conversation-index.v2';

/**
 * A segment that names the workflow it belongs to (`owner`). Artifacts are named by their content,
 * so two conversations with the same messages would share an unowned segment (an array): the owner
 * makes each workflow's segments its own, so deleting a thread deletes nothing another one reads.
 */
export const CONVERSATION_SEGMENT_FORMAT = 'durable-agents.conversation-segment.v1';

/**
 * An index lists at most this many parts; the next snapshot then starts a new index whose first
 * part is the full one. Each index write stays small (constant size), and a cold reader follows
 * one index per this many continuations.
 */
export const MAX_INDEX_PARTS = 32;

/** One part of a snapshot: the first `count` messages of an artifact that is a segment or an index. */
export interface SnapshotPart {
  artifactId: string;
  count: number;
}

/** A snapshot's index: its messages are those of its parts, in order. */
export interface ConversationIndex {
  format: typeof CONVERSATION_INDEX_FORMAT;
  count: number;
  parts: SnapshotPart[];
  /** The workflow id that wrote it (absent in indexes written before owners). */
  owner?: string;
}

/** A parsed snapshot artifact; `owner` is absent for artifacts written before owners (plain arrays). */
type SnapshotContent = { kind: 'segment'; messages: Message[]; owner?: string } | { kind: 'index'; index: ConversationIndex };

/**
 * Writes and reads conversation snapshots. A snapshot is either a segment (a JSON array of
 * messages; every snapshot written before indexes existed is one) or an index naming parts. A
 * snapshot that continues from a base writes only the messages added since it, as a new segment,
 * and an index: the base's parts plus the new segment (or, when the base's index is full, the
 * base itself plus the new segment). Artifacts never change, so parsed ones are cached per worker,
 * least recently used out first: a worker that read a chain's base reads only the new parts.
 * @example
 * const snapshots = new ConversationSnapshots(new FolderArtifactStore('/var/lib/agents/artifacts'));
 * const base = await snapshots.write(messages, undefined, { workflowId: 'run-1', callId: 'run-1-40' });
 * const same = await snapshots.read(base); // the 40 messages again
 */
export class ConversationSnapshots {
  private readonly cache = new Map<string, { content: SnapshotContent; characters: number }>();
  private cachedCharacters = 0;

  /** @param maxCachedCharacters about how much artifact text the parsed cache may stand for */
  constructor(
    private readonly store: ArtifactStore,
    private readonly maxCachedCharacters = 32_000_000,
  ) {}

  /**
   * Stores `messages` as a snapshot. With a `base` (a snapshot whose messages are the first
   * `base.count` of these, unchanged), only the rest are written; without one (a first
   * continuation, or a conversation compaction rewrote), one full segment.
   */
  async write(messages: Message[], base: ConversationBase | undefined, meta: { workflowId: string; callId: string }): Promise<ConversationBase> {
    if (!base || base.count === 0 || base.count > messages.length) {
      const artifactId = await this.put(segmentText(messages, meta.workflowId), meta.workflowId, `${meta.callId}-segment`);
      return this.putIndex([{ artifactId, count: messages.length }], meta);
    }
    const segmentId = await this.put(segmentText(messages.slice(base.count), meta.workflowId), meta.workflowId, `${meta.callId}-segment`);
    const segment = { artifactId: segmentId, count: messages.length - base.count };
    const baseContent = await this.content(base.artifactId);
    const baseParts = baseContent.kind === 'index' && baseContent.index.count === base.count ? baseContent.index.parts : [base];
    const parts = baseParts.length < MAX_INDEX_PARTS ? [...baseParts, segment] : [base, segment];
    return this.putIndex(parts, meta);
  }

  /** The snapshot's first `base.count` messages. @throws AgentRuntimeError (conversationUnavailable) when it holds fewer. */
  async read(base: ConversationBase): Promise<Message[]> {
    const content = await this.content(base.artifactId);
    const messages = content.kind === 'segment' ? content.messages : await this.readParts(content.index.parts);
    if (messages.length < base.count) {
      throw new AgentRuntimeError(
        ErrorCode.conversationUnavailable,
        `Conversation snapshot ${base.artifactId} has ${messages.length} messages; the run continued from ${base.count}`,
      );
    }
    return messages.length === base.count ? messages : messages.slice(0, base.count);
  }

  private async readParts(parts: SnapshotPart[]): Promise<Message[]> {
    // Parts are independent artifacts: fetch them at once.
    const read = await Promise.all(parts.map((part) => this.read(part)));
    return read.flat();
  }

  private async putIndex(parts: SnapshotPart[], meta: { workflowId: string; callId: string }): Promise<ConversationBase> {
    const count = parts.reduce((total, part) => total + part.count, 0);
    const index: ConversationIndex = { format: CONVERSATION_INDEX_FORMAT, count, parts, owner: meta.workflowId };
    const text = JSON.stringify(index);
    const artifactId = await this.put(text, meta.workflowId, meta.callId);
    this.remember(artifactId, { kind: 'index', index }, text.length);
    return { artifactId, count };
  }

  private put(content: string, workflowId: string, callId: string): Promise<string> {
    return this.store.put(content, { workflowId, toolName: 'conversation-snapshot', callId });
  }

  /** The parsed artifact, from the cache or the store. */
  private async content(artifactId: string): Promise<SnapshotContent> {
    const cached = this.cache.get(artifactId);
    if (cached) {
      // Newest last: least recently used first out.
      this.cache.delete(artifactId);
      this.cache.set(artifactId, cached);
      return cached.content;
    }
    const { content: text } = await this.store.read(artifactId);
    const content = parseSnapshot(artifactId, text);
    this.remember(artifactId, content, text.length);
    return content;
  }

  private remember(artifactId: string, content: SnapshotContent, characters: number): void {
    if (this.cache.has(artifactId)) return;
    this.cache.set(artifactId, { content, characters });
    this.cachedCharacters += characters;
    for (const [oldestId, oldest] of this.cache) {
      if (this.cachedCharacters <= this.maxCachedCharacters) break;
      this.cache.delete(oldestId);
      this.cachedCharacters -= oldest.characters;
    }
  }
}

/**
 * The artifacts of a stored conversation snapshot that belong to workflow `owner`: the artifact and
 * every part under it (parts may be indexes of earlier snapshots) whose content names that owner.
 * Other owned artifacts it is given (a run's carried tool results) count too. Unowned artifacts
 * (written before owners, or offloaded tool results, named by content alone and so possibly
 * another workflow's too) and missing ones are left out. For deleting a thread's data.
 */
export async function ownedSnapshotArtifacts(
  store: ArtifactStore,
  artifactId: string,
  owner: string,
  found = new Set<string>(),
): Promise<Set<string>> {
  if (found.has(artifactId)) return found;
  let text: string;
  let content: SnapshotContent;
  try {
    text = (await store.read(artifactId)).content;
  } catch {
    return found;
  }
  try {
    content = parseSnapshot(artifactId, text);
  } catch {
    // Not a snapshot: another owned artifact (the carried tool results) counts too.
    if (ownerOf(text) === owner) found.add(artifactId);
    return found;
  }
  if ((content.kind === 'index' ? content.index.owner : content.owner) !== owner) return found;
  found.add(artifactId);
  if (content.kind === 'index') for (const part of content.index.parts) await ownedSnapshotArtifacts(store, part.artifactId, owner, found);
  return found;
}

/** The `owner` an owned artifact's JSON object names (snapshots' parts, carried tool results), or undefined. */
function ownerOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { format?: unknown; owner?: unknown } | null;
    return parsed && typeof parsed.format === 'string' && parsed.format.startsWith('durable-agents.') && typeof parsed.owner === 'string'
      ? parsed.owner
      : undefined;
  } catch {
    return undefined;
  }
}

function segmentText(messages: Message[], owner: string): string {
  return JSON.stringify({ format: CONVERSATION_SEGMENT_FORMAT, owner, messages });
}

/** A segment (an array: the format of every snapshot before indexes) or an index (an object naming its format). */
function parseSnapshot(artifactId: string, text: string): SnapshotContent {
  const parsed = JSON.parse(text) as unknown;
  if (Array.isArray(parsed)) return { kind: 'segment', messages: parsed as Message[] };
  const segment = parsed as { format?: unknown; owner?: unknown; messages?: unknown } | null;
  if (segment?.format === CONVERSATION_SEGMENT_FORMAT && Array.isArray(segment.messages)) {
    return { kind: 'segment', messages: segment.messages as Message[], ...(typeof segment.owner === 'string' ? { owner: segment.owner } : {}) };
  }
  const index = parsed as Partial<ConversationIndex> | null;
  if (index?.format === CONVERSATION_INDEX_FORMAT && Array.isArray(index.parts) && typeof index.count === 'number')
    return { kind: 'index', index: index as ConversationIndex };
  throw new AgentRuntimeError(
    ErrorCode.conversationUnavailable,
    `Artifact ${artifactId} is not a conversation snapshot (neither a message array, a '${CONVERSATION_SEGMENT_FORMAT}' segment nor a '${CONVERSATION_INDEX_FORMAT}' index)`,
  );
}
