import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { GitPollingWatcher } from '../../../src/skills/git-polling-watcher';
import type { WatcherBatch } from '../../../src/skills/skill-watcher';
import { collectBatches, removeSkill, skillMarkdown, writeSkill } from '../../support/skill-files';
import { eventually } from '../../support/test-env';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
}

/** A bare "remote" and a working clone that commits and pushes to it, in temp folders. */
function makeRepository() {
  const base = mkdtempSync(path.join(os.tmpdir(), 'git-skills-'));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const remote = path.join(base, 'remote.git');
  const work = path.join(base, 'work');
  git(base, 'init', '--bare', '--initial-branch=main', remote);
  git(base, 'clone', remote, work);
  git(work, 'checkout', '-B', 'main');
  const commit = (message: string) => {
    git(work, 'add', '-A');
    git(work, 'commit', '--allow-empty', '-m', message);
    git(work, 'push', '-f', 'origin', 'main');
  };
  return { base, remote, work, commit };
}

async function startWatcher(source: string, base: string, logs: string[] = []) {
  const watcher = new GitPollingWatcher(source, {
    cacheDir: path.join(base, 'cache'),
    pollIntervalMs: 150,
    logger: { warn: (_object: unknown, message: string) => void logs.push(message), info: () => undefined },
  });
  const { initial, batches, stop } = await collectBatches(watcher);
  cleanups.push(stop);
  return { initial, batches, logs };
}

const kinds = (batches: WatcherBatch[]) => batches.flatMap((batch) => batch.changes.map((change) => `${change.kind}:${change.skillName}`));

describe('git polling watcher (simple-git)', () => {
  it('clones, then picks up pushed commits: added, modified, removed; nothing when nothing changed', async () => {
    const repo = makeRepository();
    writeSkill(repo.work, 'alpha', skillMarkdown('alpha', 'First', ['echo']));
    repo.commit('alpha');
    const { initial, batches } = await startWatcher(repo.remote, repo.base);
    expect(initial.skills.map((skill) => [skill.name, skill.tools, skill.source])).toEqual([['alpha', ['echo'], repo.remote]]);

    writeSkill(repo.work, 'beta', skillMarkdown('beta', 'Second'));
    repo.commit('beta');
    await eventually(() => batches.length === 1);
    expect(kinds(batches)).toEqual(['added:beta']);

    repo.commit('an empty commit');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(batches).toHaveLength(1);

    writeSkill(repo.work, 'alpha', skillMarkdown('alpha', 'First, better', ['echo']));
    removeSkill(repo.work, 'beta');
    repo.commit('change alpha, drop beta');
    await eventually(() => batches.length === 2);
    expect(kinds(batches.slice(1)).sort()).toEqual(['modified:alpha', 'removed:beta']);
  });

  it('logs a history that cannot fast-forward, keeps the previous skills, and keeps polling', async () => {
    const repo = makeRepository();
    writeSkill(repo.work, 'alpha', skillMarkdown('alpha', 'First'));
    repo.commit('alpha');
    const { initial, batches, logs } = await startWatcher(repo.remote, repo.base);
    expect(initial.skills).toHaveLength(1);
    // Rewrite history: a new root commit, force-pushed.
    git(repo.work, 'checkout', '--orphan', 'rewritten');
    writeSkill(repo.work, 'gamma', skillMarkdown('gamma', 'Rewritten'));
    git(repo.work, 'add', '-A');
    git(repo.work, 'commit', '-m', 'rewritten');
    git(repo.work, 'push', '-f', 'origin', 'rewritten:main');
    await eventually(() => logs.filter((line) => line.includes('--ff-only failed')).length >= 2);
    expect(batches).toEqual([]);
  });

  it('retries a missing repository and picks it up once it exists', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'git-missing-'));
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const remote = path.join(base, 'later.git');
    const logs: string[] = [];
    const { initial, batches } = await startWatcher(remote, base, logs);
    expect(initial.skills).toEqual([]);
    expect(logs[0]).toContain('could not clone');
    await eventually(() => logs.length >= 2);
    git(base, 'init', '--bare', '--initial-branch=main', remote);
    const work = path.join(base, 'work');
    git(base, 'clone', remote, work);
    git(work, 'checkout', '-B', 'main');
    writeSkill(work, 'late', skillMarkdown('late', 'Arrived late'));
    git(work, 'add', '-A');
    git(work, '-c', 'user.name=test', '-c', 'user.email=t@example.com', 'commit', '-m', 'late');
    git(work, 'push', 'origin', 'main');
    await eventually(() => kinds(batches).includes('added:late'));
  });
});
