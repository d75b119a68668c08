// The embedded memory store: one JSON file per entry in the worker's data folder, a folder per
// resource. For one machine (or workers sharing a volume); clusters use PostgresMemoryStore.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  assertResourceId,
  isMemoryEntryId,
  memoryEntryId,
  MemoryUnavailableError,
  validForgetRequest,
  validRecallQuery,
  validRememberRequest,
  type ForgetRequest,
  type MemoryEntry,
  type MemoryStore,
  type RecallQuery,
  type RememberRequest,
} from './memory-store';
import { rankEntries } from './term-matching';

/**
 * Memory as files: `<folder>/<sha256 of the resource>/<entry id>.json`. Each entry is written to a
 * temporary file and renamed into place, so a reader never sees half an entry and a worker that
 * dies mid-write leaves no entry behind. A `remember` with an idempotency key names its file after
 * the key: a retry finds the file and stores nothing twice. Recall reads the resource's entries and
 * matches words (term-matching.ts): fine for thousands of entries per resource.
 * @example
 * import { AgentPlugin, FolderMemoryStore } from 'durable-agents/worker';
 *
 * const plugin = new AgentPlugin({ tools, memory: new FolderMemoryStore('/var/lib/agents/memory') });
 */
export class FolderMemoryStore implements MemoryStore {
  /** The last creation time handed out, so entries one process stores have distinct, rising times. */
  private lastCreatedAt = 0;

  constructor(readonly folder: string) {}

  /** Checks that the folder, if it exists, is a folder (it is created with the first entry). */
  async open(): Promise<void> {
    const found = await stat(this.folder).catch(() => null);
    if (found && !found.isDirectory()) throw new MemoryUnavailableError(`The memory folder ${this.folder} is a file, not a folder`);
  }

  async remember(request: RememberRequest): Promise<{ entry: MemoryEntry; created: boolean }> {
    const valid = validRememberRequest(request);
    const id = memoryEntryId(valid.resource, valid.idempotencyKey);
    const file = this.entryFile(valid.resource, id);
    if (valid.idempotencyKey !== undefined) {
      const existing = await this.readEntry(file);
      if (existing) return { entry: existing, created: false };
    }
    const entry: MemoryEntry = {
      id,
      resource: valid.resource,
      text: valid.text,
      tags: valid.tags,
      metadata: valid.metadata,
      createdAt: new Date(this.nextCreatedAt()).toISOString(),
      source: valid.source ?? null,
    };
    await this.writeAtomically(file, `${JSON.stringify(entry)}\n`);
    return { entry, created: true };
  }

  async recall(query: RecallQuery): Promise<MemoryEntry[]> {
    const { resource, text, limit } = validRecallQuery(query);
    return rankEntries(await this.entriesOf(resource), text, limit);
  }

  async forget(request: ForgetRequest): Promise<MemoryEntry[]> {
    const valid = validForgetRequest(request);
    const doomed = 'id' in valid ? await this.entryById(valid.resource, valid.id) : await this.entriesContaining(valid.resource, valid.matching);
    const deleted: MemoryEntry[] = [];
    for (const entry of doomed) {
      // Another worker may delete it at the same moment: report only what this call removed.
      const removed = await unlink(this.entryFile(entry.resource, entry.id)).then(
        () => true,
        (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(this.unavailable(error))),
      );
      if (removed) deleted.push(entry);
    }
    return deleted;
  }

  async forgetResource(resource: string): Promise<number> {
    assertResourceId(resource);
    const count = (await this.entriesOf(resource)).length;
    await rm(this.resourceFolder(resource), { recursive: true, force: true });
    return count;
  }

  async close(): Promise<void> {}

  /** Every entry of a resource (none when its folder does not exist). */
  private async entriesOf(resource: string): Promise<MemoryEntry[]> {
    const folder = this.resourceFolder(resource);
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw this.unavailable(error);
    }
    const entries = await Promise.all(
      names.filter((name) => /^mem-[0-9a-f]{32}\.json$/.test(name)).map((name) => this.readEntry(path.join(folder, name))),
    );
    return entries.filter((entry): entry is MemoryEntry => entry !== null);
  }

  private async entryById(resource: string, id: string): Promise<MemoryEntry[]> {
    const entry = isMemoryEntryId(id) ? await this.readEntry(this.entryFile(resource, id)) : null;
    return entry ? [entry] : [];
  }

  private async entriesContaining(resource: string, text: string): Promise<MemoryEntry[]> {
    const needle = text.toLowerCase();
    return (await this.entriesOf(resource)).filter((entry) => entry.text.toLowerCase().includes(needle));
  }

  /** An entry file's content, or null when it does not exist (or was deleted while the folder was read). */
  private async readEntry(file: string): Promise<MemoryEntry | null> {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as MemoryEntry;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw this.unavailable(error);
    }
  }

  /** Temp file in the same folder, then rename: atomic on one file system. */
  private async writeAtomically(file: string, content: string): Promise<void> {
    const temporary = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(temporary, content, { flag: 'wx' });
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw this.unavailable(error);
    }
  }

  private nextCreatedAt(): number {
    this.lastCreatedAt = Math.max(Date.now(), this.lastCreatedAt + 1);
    return this.lastCreatedAt;
  }

  /** Resource ids may hold any character: the folder is named by their hash. */
  private resourceFolder(resource: string): string {
    return path.join(this.folder, createHash('sha256').update(resource).digest('hex').slice(0, 40));
  }

  private entryFile(resource: string, id: string): string {
    return path.join(this.resourceFolder(resource), `${id}.json`);
  }

  private unavailable(error: unknown): MemoryUnavailableError {
    return new MemoryUnavailableError(`The memory folder ${this.folder} cannot be used: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
