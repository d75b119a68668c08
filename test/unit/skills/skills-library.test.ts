import { existsSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import chokidar, { type FSWatcher } from 'chokidar';
import {
  readSkillFolder,
  SkillEventBus,
  SkillSetTracker,
  SkillSyncManager,
  type SkillEvents,
  type SkillInfo,
  type SkillWatcher,
  type WatcherBatch,
} from '../../../src/skills';
import { removeSkill, skillMarkdown, tempSkillRoot, writeSkill } from '../../support/skill-files';
import { eventually } from '../../support/test-env';

/**
 * `durable-agents/skills` as a library (issue 41, item 12): a source of the user's own (here on
 * chokidar, over real files) and a subscriber of the user's own, under a manager given a tool map,
 * an event bus and an instructions builder, stopped by `Symbol.asyncDispose`.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A custom source, written only against the public API: re-reads its folder a moment after chokidar reports anything. */
class ChokidarSource implements SkillWatcher {
  private readonly tracker = new SkillSetTracker();
  private watcher: FSWatcher | null = null;
  private readonly pending: WatcherBatch[] = [];
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  stops = 0;

  constructor(readonly source: string) {}

  async start() {
    const snapshot = readSkillFolder(this.source, this.source);
    this.tracker.reset(snapshot);
    this.watcher = chokidar.watch(this.source, { ignoreInitial: true });
    this.watcher.on('all', () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.read(), 100);
    });
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
    return snapshot;
  }

  private read(): void {
    const batch = this.tracker.next(readSkillFolder(this.source, this.source, undefined, this.tracker.skills));
    if (!batch) return;
    this.pending.push(batch);
    this.wake?.();
  }

  async *watch(): AsyncIterable<WatcherBatch> {
    while (!this.stopped) {
      const batch = this.pending.shift();
      if (batch) yield batch;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async stop() {
    this.stops++;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.watcher?.close();
    this.wake?.();
  }
}

describe('the skills library API', () => {
  it('runs a custom source and a custom subscriber with a tool map and an instructions builder, and stops on asyncDispose', async () => {
    const root = tempSkillRoot();
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    writeSkill(root, 'greeter', skillMarkdown('greeter', 'Greets people.'));

    const seen: string[] = [];
    const instructions: string[] = [];
    const bus = new SkillEventBus();
    const subscriber = {
      added: ({ skill, version }: SkillEvents['skill:added']) => void seen.push(`added ${skill.name} [${skill.tools.join(' ')}] v${version}`),
      modified: ({ oldSkill, newSkill }: SkillEvents['skill:modified']) =>
        void seen.push(`modified ${newSkill.name}: ${oldSkill?.description} -> ${newSkill.description}`),
      removed: ({ skillName, skill }: SkillEvents['skill:removed']) => void seen.push(`removed ${skillName} (was ${skill?.description})`),
    };
    bus.on('skill:added', subscriber.added);
    bus.on('skill:modified', subscriber.modified);
    bus.on('skill:removed', subscriber.removed);
    bus.on('skill:instructions', ({ instructions: text }) => void instructions.push(text));
    // A subscriber that fails does not stop the others.
    bus.on('skill:added', () => {
      throw new Error('dashboard is down');
    });

    const source = new ChokidarSource(root);
    const manager = new SkillSyncManager({
      bus,
      toolResolver: { greeter: 'echo', adder: ['add', 'noop'] },
      instructionsBuilder: (skills: SkillInfo[]) => skills.map((skill) => `${skill.name}: ${skill.description}`).join('\n'),
    });
    manager.addWatcher(source);
    await manager.start();
    expect(manager.snapshot(root).skills.map((skill) => [skill.name, skill.tools])).toEqual([['greeter', ['echo']]]);
    expect(manager.instructions()).toBe('greeter: Greets people.');

    writeSkill(root, 'adder', skillMarkdown('adder', 'Adds numbers.'));
    await eventually(() => seen.includes('added adder [add noop] v1'), 20_000);
    writeSkill(root, 'greeter', skillMarkdown('greeter', 'Greets everyone.'));
    await eventually(() => seen.includes('modified greeter: Greets people. -> Greets everyone.'), 20_000);
    removeSkill(root, 'adder');
    await eventually(() => seen.includes('removed adder (was Adds numbers.)'), 20_000);
    expect(seen).toEqual(['added adder [add noop] v1', 'modified greeter: Greets people. -> Greets everyone.', 'removed adder (was Adds numbers.)']);
    expect(manager.snapshot(root).version).toBe(3);
    expect(instructions).toEqual([
      'greeter: Greets people.',
      'adder: Adds numbers.\ngreeter: Greets people.',
      'adder: Adds numbers.\ngreeter: Greets everyone.',
      'greeter: Greets everyone.',
    ]);

    await manager[Symbol.asyncDispose]();
    expect(source.stops).toBe(1);
    // Stopped: an edit now reaches no one.
    writeSkill(root, 'late', skillMarkdown('late', 'Too late.'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).toHaveLength(3);
    expect(existsSync(root)).toBe(true);
  }, 60_000);
});
