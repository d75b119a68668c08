// The folder artifact store under a writer killed mid-write and under concurrent writers.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ArtifactNotFoundError } from '../../src/artifacts/artifact-store';
import { FolderArtifactStore } from '../../src/artifacts/folder-artifact-store';

const WRITER = path.join(__dirname, '..', 'support', 'artifact-writer.ts');
const MEGABYTES = 64;
/** What test/support/artifact-writer.ts stores. */
const content = `artifact of ${MEGABYTES} MB: `.padEnd(MEGABYTES * 1024 * 1024, 'x');
const id = `sha256-${createHash('sha256').update(content).digest('hex')}`;

let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'folder-store-'));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Starts a writer process and SIGKILLs it as soon as any file of it appears; resolves with the folder's files. */
async function killWriterMidWrite(folder: string): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, folder, String(MEGABYTES)], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  const deadline = Date.now() + 60_000;
  while (running && Date.now() < deadline) {
    if (safeList(folder).length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  child.kill('SIGKILL');
  await exited;
  return safeList(folder);
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

describe('folder artifact store', () => {
  it('never shows a partial artifact when its writer is killed mid-write', async () => {
    let killedMidWrite = 0;
    for (let trial = 1; trial <= 5 && killedMidWrite === 0; trial++) {
      const folder = path.join(scratch, `kill-${trial}`);
      const files = await killWriterMidWrite(folder);
      // Whatever carries an artifact's name holds exactly the content that name hashes.
      for (const file of files.filter((name) => name.endsWith('.txt'))) {
        expect(
          `sha256-${createHash('sha256')
            .update(readFileSync(path.join(folder, file)))
            .digest('hex')}.txt`,
        ).toBe(file);
      }
      const store = new FolderArtifactStore(folder);
      const read = await store.read(id, 0, 10).catch((error: unknown) => error);
      if (read instanceof ArtifactNotFoundError) killedMidWrite += files.some((file) => file.endsWith('.tmp')) ? 1 : 0;
      else expect(read).toEqual({ content: content.slice(0, 10), totalLength: content.length });
    }
    // At least one kill landed while the content was being written (a partial temporary file).
    expect(killedMidWrite).toBeGreaterThan(0);
  }, 300_000);

  it('stores the same content from several writers at once, whole, leaving no temporary file', async () => {
    const folder = path.join(scratch, 'concurrent');
    const text = 'y'.repeat(4 * 1024 * 1024);
    const ids = await Promise.all(Array.from({ length: 8 }, () => new FolderArtifactStore(folder).put(text)));
    expect(new Set(ids).size).toBe(1);
    expect(readdirSync(folder)).toEqual([`${ids[0]}.txt`]);
    expect((await new FolderArtifactStore(folder).read(ids[0]!)).content).toBe(text);
  });
});
