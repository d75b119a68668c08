import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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

  /** Writes the content to `<sha256>.txt` (creating the folder) and returns `sha256-<hex>`. */
  async put(content: string): Promise<string> {
    const id = `sha256-${createHash('sha256').update(content).digest('hex')}`;
    await mkdir(this.folder, { recursive: true });
    await writeFile(this.file(id), content, { flag: 'w' });
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

  private file(id: string): string {
    return path.join(this.folder, `${id}.txt`);
  }
}
