// Artifacts as files in a folder, written atomically (a killed writer never leaves a partial artifact).
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ArtifactNotFoundError, type ArtifactStore } from './artifact-store';

/**
 * Artifacts as files named by the SHA-256 of their content: writes are idempotent, so a retried
 * tool activity stores nothing twice. Every worker of a task queue must see the same folder (a
 * shared volume), since any of them may run the `read_artifact` tool.
 * @example
 * import { AgentPlugin, FolderArtifactStore } from 'durable-agents/worker';
 *
 * const plugin = new AgentPlugin({ tools, artifacts: new FolderArtifactStore('/var/lib/agents/artifacts') });
 */
export class FolderArtifactStore implements ArtifactStore {
  constructor(private readonly folder: string) {}

  /**
   * Writes the content to `<sha256>.txt` (creating the folder) and returns `sha256-<hex>`. The file
   * appears whole or not at all: the content goes to a temporary file in the same folder, is
   * flushed to disk, then renamed over the name (a rename within one file system is atomic), and
   * the folder is flushed so the new name survives a power loss too. A writer killed mid-write
   * leaves only its `.sha256-….tmp` file, which no read ever opens.
   */
  async put(content: string): Promise<string> {
    const id = `sha256-${createHash('sha256').update(content).digest('hex')}`;
    await mkdir(this.folder, { recursive: true });
    // Unique per write: two workers storing the same artifact at once each rename their own file.
    const temporary = path.join(this.folder, `.${id}.${randomUUID()}.tmp`);
    try {
      const file = await open(temporary, 'wx');
      try {
        await file.writeFile(content, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, this.file(id));
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncFolder(this.folder);
    return id;
  }

  /** A slice of an artifact's text. @throws ArtifactNotFoundError for a malformed or unknown id. */
  async read(id: string, offset = 0, length?: number): Promise<{ content: string; totalLength: number }> {
    if (!/^sha256-[0-9a-f]{64}$/.test(id)) throw new ArtifactNotFoundError(`'${id}' is not an artifact id`);
    let content: string;
    try {
      content = await readFile(this.file(id), 'utf8');
    } catch {
      throw new ArtifactNotFoundError(`No artifact '${id}'`);
    }
    return { content: content.slice(offset, length === undefined ? undefined : offset + length), totalLength: content.length };
  }

  /** Deletes the artifact's file: true when it was there, false for an unknown or malformed id. */
  async delete(id: string): Promise<boolean> {
    if (!/^sha256-[0-9a-f]{64}$/.test(id)) return false;
    try {
      await unlink(this.file(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    await syncFolder(this.folder);
    return true;
  }

  /** `folder <path>`, as errors name the store. */
  toString(): string {
    return `folder ${path.resolve(this.folder)}`;
  }

  private file(id: string): string {
    return path.join(this.folder, `${id}.txt`);
  }
}

/**
 * Flushes a folder's entries (the rename) to disk. Best effort: some platforms and file systems
 * (Windows, some network mounts) cannot open or sync a folder; the file's own data is synced already.
 */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Nothing more to do where a folder cannot be synced.
  }
}
