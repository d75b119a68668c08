import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { SimpleGit } from 'simple-git';

/** Where clones of git skill sources live: one folder per URL under `cacheDir`. */
export function checkoutFolder(cacheDir: string, url: string): string {
  return path.join(cacheDir, createHash('sha256').update(url).digest('hex').slice(0, 16));
}

/**
 * Makes sure `folder` holds a clone of `url` (cloning it if needed) and fast-forwards it.
 * @throws when the repository cannot be reached or the pull cannot fast-forward; the checkout is
 * left as it was, so the previous skills stay readable. simple-git loads on the first call, so a
 * worker whose agents use no git skill source never loads it.
 */
export async function syncCheckout(url: string, folder: string, signal?: AbortSignal): Promise<{ cloned: boolean }> {
  const { simpleGit } = require('simple-git') as typeof import('simple-git');
  const options = signal ? { abort: signal } : {};
  if (!existsSync(path.join(folder, '.git'))) {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(path.dirname(folder), { recursive: true });
    await simpleGit(options).clone(url, folder);
    return { cloned: true };
  }
  const git: SimpleGit = simpleGit({ ...options, baseDir: folder });
  await git.pull(['--ff-only']);
  return { cloned: false };
}
