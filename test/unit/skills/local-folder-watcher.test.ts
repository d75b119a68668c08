import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { LocalFolderWatcher } from '../../../src/skills/local-folder-watcher';
import type { WatcherBatch } from '../../../src/skills/skill-watcher';
import { SkillMetrics } from '../../../src/skills/skill-event-bus';
import { SkillSyncManager } from '../../../src/skills/skill-sync-manager';
import type { SkillSnapshot, SkillBatch } from '../../../src/protocol/skill-types';
import type { SkillWatcher } from '../../../src/skills/skill-watcher';
import { eventually } from '../../support/test-env';
import { collectBatches, removeSkill, skillMarkdown, tempSkillRoot, writeSkill } from '../../support/skill-files';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startWatcher(root: string) {
  const watcher = new LocalFolderWatcher(root, { debounceMs: 150, missingCheckMs: 200 });
  const { initial, batches, stop } = await collectBatches(watcher);
  cleanups.push(stop);
  return { watcher, initial, batches };
}

function kinds(batch: WatcherBatch | undefined) {
  return batch?.changes.map((change) => `${change.kind}:${change.skillName}`);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

describe('local folder watcher (chokidar)', () => {
  it('yields added, modified and removed skills, and nothing for a save without a change', async () => {
    const root = tempSkillRoot();
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    writeSkill(root, 'alpha', skillMarkdown('alpha', 'First'));
    const { initial, batches } = await startWatcher(root);
    expect(initial.skills.map((skill) => skill.name)).toEqual(['alpha']);

    writeSkill(root, 'beta', skillMarkdown('beta', 'Second', ['echo']));
    await eventually(() => batches.length === 1);
    expect(kinds(batches[0])).toEqual(['added:beta']);
    expect(batches[0]?.changes[0]?.skill?.tools).toEqual(['echo']);

    writeSkill(root, 'alpha', skillMarkdown('alpha', 'First'));
    await settle();
    expect(batches).toHaveLength(1);

    writeSkill(root, 'alpha', skillMarkdown('alpha', 'First, improved'));
    await eventually(() => batches.length === 2);
    expect(kinds(batches[1])).toEqual(['modified:alpha']);

    removeSkill(root, 'beta');
    await eventually(() => batches.length === 3);
    expect(kinds(batches[2])).toEqual(['removed:beta']);
  });

  it('keeps the previous version of a skill whose file becomes malformed, and reports the file', async () => {
    const root = tempSkillRoot();
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const file = writeSkill(root, 'alpha', skillMarkdown('alpha', 'Good'));
    const { batches, watcher } = await startWatcher(root);
    writeFileSync(file, '---\nname: alpha\n---\nno description');
    await eventually(() => batches.length === 1);
    expect(batches[0]?.changes).toEqual([]);
    expect(batches[0]?.errors).toEqual([expect.objectContaining({ file, message: expect.stringContaining('description') })]);
    writeFileSync(file, skillMarkdown('alpha', 'Fixed'));
    await eventually(() => batches.length === 2);
    expect(kinds(batches[1])).toEqual(['modified:alpha']);
    expect(batches[1]?.changes[0]?.skill?.description).toBe('Fixed');
    void watcher;
  });

  it('turns a renamed skill folder into a removal and an addition', async () => {
    const root = tempSkillRoot();
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    writeSkill(root, 'old-name', skillMarkdown('old-name', 'Renamed soon'));
    const { batches } = await startWatcher(root);
    renameSync(path.join(root, 'old-name'), path.join(root, 'new-name'));
    writeSkill(root, 'new-name', skillMarkdown('new-name', 'Renamed soon'));
    await eventually(() => batches.flatMap((batch) => batch.changes).length >= 2);
    expect(batches.flatMap((batch) => kinds(batch) ?? []).sort()).toEqual(['added:new-name', 'removed:old-name']);
  });

  it('debounces a burst of 50 edits into one batch', async () => {
    const root = tempSkillRoot();
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    writeSkill(root, 'busy', skillMarkdown('busy', 'version 0'));
    const { batches } = await startWatcher(root);
    for (let edit = 1; edit <= 50; edit++) writeSkill(root, 'busy', skillMarkdown('busy', `version ${edit}`));
    await eventually(() => batches.length >= 1);
    await settle();
    expect(batches).toHaveLength(1);
    expect(batches[0]?.changes.map((change) => change.skill?.description)).toEqual(['version 50']);
  });

  it('removes the skills of a deleted folder and picks them up when it comes back', async () => {
    const root = tempSkillRoot();
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    writeSkill(root, 'alpha', skillMarkdown('alpha', 'Here'));
    const { batches } = await startWatcher(root);
    rmSync(root, { recursive: true, force: true });
    await eventually(() => batches.some((batch) => kinds(batch)?.includes('removed:alpha')));
    writeSkill(root, 'alpha', skillMarkdown('alpha', 'Back'));
    await eventually(() => batches.some((batch) => kinds(batch)?.includes('added:alpha')));
  });
});

/** A watcher that fails on demand, to exercise the manager's restarts. */
class FlakyWatcher implements SkillWatcher {
  readonly source = '/flaky';
  starts = 0;
  private failNext: ((error: Error) => void) | null = null;
  private stopped = false;
  async start(): Promise<SkillSnapshot> {
    this.starts++;
    return { source: this.source, skills: [], hash: 'empty', errors: [] };
  }
  async *watch() {
    if (this.stopped) return;
    await new Promise<void>((_resolve, reject) => (this.failNext = reject));
    yield { changes: [], errors: [] };
  }
  fail(): void {
    this.failNext?.(new Error('disk went away'));
  }
  async stop(): Promise<void> {
    this.stopped = true;
    this.failNext?.(new Error('stopped'));
  }
}

describe('skill sync manager', () => {
  it('versions each batch, emits skill events, counts them, and isolates a failing listener', async () => {
    const root = tempSkillRoot();
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const manager = new SkillSyncManager({ backoff: { initialMs: 50, maxMs: 200 } });
    const metrics = new SkillMetrics(manager.bus);
    const added: string[] = [];
    manager.bus.on('skill:added', ({ skill }) => void added.push(skill.name));
    manager.bus.on('skill:added', () => {
      throw new Error('a broken subscriber');
    });
    const batches: SkillBatch[] = [];
    manager.onBatch(() => {
      throw new Error('a broken listener');
    });
    manager.onBatch((batch) => void batches.push(batch));
    manager.addWatcher(new LocalFolderWatcher(root, { debounceMs: 100 }));
    await manager.start();
    cleanups.push(() => manager.stop());

    writeSkill(root, 'one', skillMarkdown('one', 'First', ['echo']));
    await eventually(() => batches.length === 1);
    writeSkill(root, 'two', skillMarkdown('two', 'Second'));
    await eventually(() => batches.length === 2);
    removeSkill(root, 'one');
    await eventually(() => batches.length === 3);

    expect(batches.map((batch) => batch.version)).toEqual([1, 2, 3]);
    expect(batches[1]?.previousHash).toBe(batches[0]?.hash);
    expect(added).toEqual(['one', 'two']);
    expect(metrics.counts).toEqual({ added: 2, modified: 0, removed: 1 });
    expect(manager.snapshot(root)).toMatchObject({ version: 3, skills: [expect.objectContaining({ name: 'two' })] });
  });

  it('restarts a failed watcher with exponential backoff and stops cleanly', async () => {
    const manager = new SkillSyncManager({ backoff: { initialMs: 50, maxMs: 200 } });
    const watcher = new FlakyWatcher();
    manager.addWatcher(watcher);
    await manager.start();
    await eventually(() => watcher.starts === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    watcher.fail();
    await eventually(() => watcher.starts === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    watcher.fail();
    await eventually(() => watcher.starts === 3);
    await manager.stop();
  });
});
