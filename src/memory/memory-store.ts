// The memory store contract: what a worker keeps across runs and threads for a resource (a user, a
// team), its entries, limits and errors. Backends: folder-memory-store.ts, postgres-memory-store.ts.
import { createHash, randomUUID } from 'node:crypto';
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import { resourceIdProblem } from '../protocol/resource-id';

/** Where an entry came from: the run and the tool call that remembered it. */
export interface MemorySource {
  workflowId: string;
  callId: string;
}

/** One remembered fact of a resource. */
export interface MemoryEntry {
  /** `mem-` and 32 hex digits. */
  id: string;
  /** Whose memory it is (`user:42`). */
  resource: string;
  text: string;
  tags: string[];
  metadata: Record<string, unknown>;
  /** When it was stored, ISO 8601 (milliseconds). */
  createdAt: string;
  /** The run and call that stored it; null for entries stored through the library. */
  source: MemorySource | null;
}

/** What `MemoryStore.remember` stores. */
export interface RememberRequest {
  resource: string;
  /** The fact, 1 to MEMORY_LIMITS.textCharacters characters. */
  text: string;
  tags?: string[];
  /** Small JSON data kept with the entry (at most MEMORY_LIMITS.metadataBytes as JSON). */
  metadata?: Record<string, unknown>;
  source?: MemorySource;
  /**
   * The same key stores the same entry once: a retried tool call (same `ToolContext.idempotencyKey`)
   * gets the entry the first attempt stored. Without a key, every call stores a new entry.
   */
  idempotencyKey?: string;
}

/** What `MemoryStore.recall` looks for. */
export interface RecallQuery {
  resource: string;
  /**
   * Words to look for. An entry matches when its text or tags contain any of them; entries that
   * contain more of them come first, then the newest. Empty or absent: the newest entries.
   */
  text?: string;
  /** At most this many entries (1 to MEMORY_LIMITS.recallEntries; default 10). */
  limit?: number;
}

/** What `MemoryStore.forget` deletes: one entry by id, or every entry whose text contains `matching` (ignoring case). */
export type ForgetRequest = { resource: string; id: string } | { resource: string; matching: string };

/**
 * A worker's memory: facts kept per resource (a user, a team), shared by all of that resource's
 * runs and threads. Agents with `memory: true` reach it through the `remember`, `recall` and
 * `forget` tools. Tools run at least once, so `remember` is idempotent by key. Implementations:
 * `FolderMemoryStore` (one machine, the default) and `PostgresMemoryStore` (clusters).
 * @example
 * import { AgentPlugin, PostgresMemoryStore } from 'durable-agents/worker';
 *
 * const memory = new PostgresMemoryStore({ connectionString: process.env.AGENT_MEMORY_URL! });
 * const plugin = new AgentPlugin({ tools, memory });
 */
export interface MemoryStore {
  /**
   * Checks that the store can be reached and prepares it (the PostgreSQL table). Idempotent; the
   * worker calls it before it polls and refuses to start when it fails.
   * @throws MemoryUnavailableError
   */
  open(): Promise<void>;
  /** Stores a fact; `created` is false when the idempotency key had already stored it. @throws MemoryInputError */
  remember(request: RememberRequest): Promise<{ entry: MemoryEntry; created: boolean }>;
  /** Entries of the resource that match, most relevant and newest first. @throws MemoryInputError */
  recall(query: RecallQuery): Promise<MemoryEntry[]>;
  /** Deletes entries of the resource and returns them (none: nothing matched, or they were already gone). */
  forget(request: ForgetRequest): Promise<MemoryEntry[]>;
  /** Deletes every entry of the resource; returns how many there were. */
  forgetResource(resource: string): Promise<number>;
  /** Releases connections. The store may not be used afterwards. */
  close(): Promise<void>;
}

/**
 * Bounds of entries and recalls, the same on every backend.
 * @example
 * import { MEMORY_LIMITS } from 'durable-agents/worker';
 *
 * const fact = userNote.slice(0, MEMORY_LIMITS.textCharacters); // what one entry may hold
 */
export const MEMORY_LIMITS = {
  textCharacters: 4_000,
  tags: 10,
  tagCharacters: 64,
  metadataBytes: 4_096,
  recallEntries: 50,
  queryCharacters: 1_000,
  defaultRecallEntries: 10,
} as const;

/**
 * A memory request the store refuses (code `InvalidMemoryInput`): a bad resource id, an empty or
 * too long text, too many tags. Nothing was stored or deleted.
 * @example
 * import { MemoryInputError } from 'durable-agents/worker';
 *
 * try {
 *   await memory.remember({ resource: 'user:42', text: note });
 * } catch (error) {
 *   if (error instanceof MemoryInputError) console.warn(`Not stored: ${error.message}`);
 *   else throw error;
 * }
 */
export class MemoryInputError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.invalidMemoryInput, message);
  }
}

/**
 * The memory store cannot be reached (code `MemoryUnavailable`): PostgreSQL is down or refuses the
 * credentials, the folder cannot be written. A system error, not a user error: a memory tool turns
 * it into an error result the model sees, and the turn goes on; a worker does not start with it.
 * @example
 * import { createAgentWorker, MemoryUnavailableError } from 'durable-agents/worker';
 *
 * try {
 *   await createAgentWorker({ connection, tools });
 * } catch (error) {
 *   if (error instanceof MemoryUnavailableError) console.error(`${error.message} (is PostgreSQL up?)`);
 *   throw error;
 * }
 */
export class MemoryUnavailableError extends Error {
  override name = 'MemoryUnavailableError';
  readonly code = ErrorCode.memoryUnavailable;
}

/** The id of a new entry: derived from the resource and the idempotency key, so a retry finds the same entry; random without a key. */
export function memoryEntryId(resource: string, idempotencyKey?: string): string {
  const seed = idempotencyKey === undefined ? randomUUID() : `${resource}\u0000${idempotencyKey}`;
  return `mem-${createHash('sha256').update(seed).digest('hex').slice(0, 32)}`;
}

/** Whether `id` has the shape of an entry id (anything else names no entry). */
export function isMemoryEntryId(id: string): boolean {
  return /^mem-[0-9a-f]{32}$/.test(id);
}

/** @throws MemoryInputError naming the resource id's problem. */
export function assertResourceId(resource: unknown): asserts resource is string {
  const problem = resourceIdProblem(resource);
  if (problem) throw new MemoryInputError(`resource: ${problem}`);
}

/** A remember request checked against MEMORY_LIMITS, its text trimmed and tags deduplicated. @throws MemoryInputError */
export function validRememberRequest(request: RememberRequest): RememberRequest & { tags: string[]; metadata: Record<string, unknown> } {
  assertResourceId(request.resource);
  const text = typeof request.text === 'string' ? request.text.trim() : '';
  if (!text) throw new MemoryInputError('text: must not be empty');
  if (text.length > MEMORY_LIMITS.textCharacters)
    throw new MemoryInputError(`text: must be at most ${MEMORY_LIMITS.textCharacters} characters (got ${text.length}); store one fact at a time`);
  const tags = [...new Set((request.tags ?? []).map((tag) => tag.trim()).filter(Boolean))];
  if (tags.length > MEMORY_LIMITS.tags) throw new MemoryInputError(`tags: at most ${MEMORY_LIMITS.tags} (got ${tags.length})`);
  const longTag = tags.find((tag) => tag.length > MEMORY_LIMITS.tagCharacters);
  if (longTag) throw new MemoryInputError(`tags: '${longTag.slice(0, 20)}…' is longer than ${MEMORY_LIMITS.tagCharacters} characters`);
  const metadata = request.metadata ?? {};
  const metadataBytes = Buffer.byteLength(JSON.stringify(metadata));
  if (metadataBytes > MEMORY_LIMITS.metadataBytes)
    throw new MemoryInputError(`metadata: at most ${MEMORY_LIMITS.metadataBytes} bytes of JSON (got ${metadataBytes})`);
  return { ...request, text, tags, metadata };
}

/** A recall query checked against MEMORY_LIMITS, with its limit defaulted. @throws MemoryInputError */
export function validRecallQuery(query: RecallQuery): { resource: string; text: string; limit: number } {
  assertResourceId(query.resource);
  const text = (query.text ?? '').trim();
  if (text.length > MEMORY_LIMITS.queryCharacters)
    throw new MemoryInputError(`text: a query must be at most ${MEMORY_LIMITS.queryCharacters} characters (got ${text.length})`);
  const limit = query.limit ?? MEMORY_LIMITS.defaultRecallEntries;
  if (!Number.isInteger(limit) || limit < 1 || limit > MEMORY_LIMITS.recallEntries) {
    throw new MemoryInputError(`limit: must be a whole number from 1 to ${MEMORY_LIMITS.recallEntries} (got ${limit})`);
  }
  return { resource: query.resource, text, limit };
}

/** A forget request checked: a resource id, and a non-empty `matching` text when it is not by id. @throws MemoryInputError */
export function validForgetRequest(request: ForgetRequest): ForgetRequest {
  assertResourceId(request.resource);
  if ('id' in request) return request;
  const matching = typeof request.matching === 'string' ? request.matching.trim() : '';
  if (!matching) throw new MemoryInputError('matching: must not be empty (forgetting every entry is forgetResource)');
  return { resource: request.resource, matching };
}
