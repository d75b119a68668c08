// Clones of git skill sources: one folder per source URL, cloned once, then fast-forwarded.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { SimpleGit } from 'simple-git';
import type { SkillSnapshot } from '../protocol/skill-types';
import { parseGitSource } from './git-source-location';
import { readSkillFolder } from './skill-source';
import type { ToolResolver } from './tool-resolver';

/** Where clones of git skill sources live: one folder per URL under `cacheDir`. */
export function checkoutFolder(cacheDir: string, url: string): string {
  return path.join(cacheDir, createHash('sha256').update(url).digest('hex').slice(0, 16));
}

/** The folder of a checkout that holds the source's skills (a GitHub `…/tree/<branch>/<path>` URL names one). */
export function skillsFolderOf(checkout: string, source: string): string {
  return path.join(checkout, parseGitSource(source).path);
}

/**
 * Makes sure `folder` holds a clone of the source's repository (cloning it if needed, on the
 * branch a GitHub tree URL names) and fast-forwards it.
 * @throws when the repository cannot be reached or the pull cannot fast-forward; the checkout is
 * left as it was, so the previous skills stay readable. simple-git loads on the first call, so a
 * worker whose agents use no git skill source never loads it.
 */
export async function syncCheckout(source: string, folder: string, signal?: AbortSignal): Promise<{ cloned: boolean }> {
  const { simpleGit } = require('simple-git') as typeof import('simple-git');
  const options = signal ? { abort: signal } : {};
  const { repository, branch } = parseGitSource(source);
  if (!existsSync(path.join(folder, '.git'))) {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(path.dirname(folder), { recursive: true });
    await simpleGit(options).clone(repository, folder, branch ? ['--branch', branch] : []);
    return { cloned: true };
  }
  const git: SimpleGit = simpleGit({ ...options, baseDir: folder });
  await git.pull(['--ff-only']);
  return { cloned: false };
}

/**
 * All skills of a git source, read after a clone or fast-forward into `cacheDir`. A failed sync is
 * reported as an error of the snapshot (named by the source), and the previous checkout, if any,
 * still serves.
 */
export async function readGitSkillSource(source: string, cacheDir: string, resolver: ToolResolver): Promise<SkillSnapshot> {
  const folder = checkoutFolder(cacheDir, source);
  const errors: SkillSnapshot['errors'] = [];
  try {
    await syncCheckout(source, folder);
  } catch (error) {
    errors.push({ file: source, message: `${source}: ${error instanceof Error ? error.message : String(error)}` });
  }
  const snapshot = readSkillFolder(skillsFolderOf(folder, source), source, resolver);
  return { ...snapshot, errors: [...errors, ...snapshot.errors] };
}
