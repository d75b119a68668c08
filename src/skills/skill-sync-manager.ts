import type { Logger } from 'pino';
import type { SkillBatch, SkillInfo, SkillSnapshot } from '../protocol/skill-types';
import { SkillEventBus } from './skill-event-bus';
import { diffSkills } from './skill-diff';
import { skillSetHash } from './skill-source';
import type { SkillWatcher, WatcherBatch } from './skill-watcher';

export interface SkillSyncManagerOptions {
  bus?: SkillEventBus;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Restart delays of a failed watcher: doubling from `initialMs` up to `maxMs`. */
  backoff?: { initialMs: number; maxMs: number };
}

type BatchListener = (batch: SkillBatch, snapshot: SkillSnapshot) => void | Promise<void>;

interface SourceState {
  watcher: SkillWatcher;
  skills: SkillInfo[];
  hash: string;
  version: number;
}

/**
 * Runs skill watchers and keeps the current skill set of each source: applies every batch, gives
 * it a version (monotonic per source), emits `skill:*` events, and hands it to listeners (the
 * watcher process signals running runs from one). Failures are isolated: a watcher that throws is
 * restarted with exponential backoff, and a listener that throws is logged.
 */
export class SkillSyncManager {
  readonly bus: SkillEventBus;
  private readonly sources = new Map<string, SourceState>();
  private readonly listeners: BatchListener[] = [];
  private readonly tasks: Promise<void>[] = [];
  private running = false;
  private readonly backoff: { initialMs: number; maxMs: number };

  constructor(private readonly options: SkillSyncManagerOptions = {}) {
    this.bus = options.bus ?? new SkillEventBus(options.logger);
    this.backoff = options.backoff ?? { initialMs: 1_000, maxMs: 60_000 };
  }

  /** Registers a watcher; call before `start()`. */
  addWatcher(watcher: SkillWatcher): void {
    if (this.running) throw new Error('add watchers before start()');
    this.sources.set(watcher.source, { watcher, skills: [], hash: skillSetHash([]), version: 0 });
  }

  onBatch(listener: BatchListener): void {
    this.listeners.push(listener);
  }

  /** The current skills of a source, with its version and hash. */
  snapshot(source: string): SkillSnapshot & { version: number } {
    const state = this.sources.get(source);
    if (!state) throw new Error(`unknown skill source ${source}`);
    return { source, skills: [...state.skills], hash: state.hash, errors: [], version: state.version };
  }

  async start(): Promise<void> {
    this.running = true;
    for (const state of this.sources.values()) {
      const snapshot = await state.watcher.start();
      state.skills = snapshot.skills;
      state.hash = snapshot.hash;
      for (const error of snapshot.errors) this.options.logger?.warn({ file: error.file }, error.message);
      this.tasks.push(this.run(state));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.sources.values()].map((state) => state.watcher.stop().catch(() => undefined)));
    await Promise.all(this.tasks);
  }

  private async run(state: SourceState): Promise<void> {
    let delay = this.backoff.initialMs;
    while (this.running) {
      try {
        for await (const batch of state.watcher.watch()) {
          delay = this.backoff.initialMs;
          await this.apply(state, batch);
        }
        return; // stopped
      } catch (error) {
        if (!this.running) return;
        this.options.logger?.error({ source: state.watcher.source, error: String(error), retryInMs: delay }, 'skill watcher failed; restarting');
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, this.backoff.maxMs);
        if (!this.running) return;
        try {
          const snapshot = await state.watcher.start();
          await this.apply(state, { changes: diffSkills(state.skills, snapshot.skills), errors: snapshot.errors });
        } catch (restartError) {
          this.options.logger?.error({ source: state.watcher.source, error: String(restartError) }, 'skill watcher restart failed');
        }
      }
    }
  }

  private async apply(state: SourceState, batch: WatcherBatch): Promise<void> {
    if (batch.changes.length === 0 && batch.errors.length === 0) return;
    const previousHash = state.hash;
    const before = new Map(state.skills.map((skill) => [skill.name, skill]));
    const after = new Map(before);
    for (const change of batch.changes) {
      if (change.kind === 'removed') after.delete(change.skillName);
      else if (change.skill) after.set(change.skillName, change.skill);
    }
    state.skills = [...after.values()].sort((a, b) => a.name.localeCompare(b.name));
    state.hash = skillSetHash(state.skills);
    state.version += 1;
    const version = state.version;
    for (const error of batch.errors) this.options.logger?.warn({ file: error.file }, error.message);
    for (const change of batch.changes) {
      if (change.kind === 'added' && change.skill) await this.bus.emit('skill:added', { skill: change.skill, version });
      if (change.kind === 'modified' && change.skill)
        await this.bus.emit('skill:modified', { oldSkill: before.get(change.skillName) ?? null, newSkill: change.skill, version });
      if (change.kind === 'removed')
        await this.bus.emit('skill:removed', { skill: before.get(change.skillName) ?? null, skillName: change.skillName, version });
    }
    const signalled: SkillBatch = {
      source: state.watcher.source,
      version,
      previousHash,
      hash: state.hash,
      changes: batch.changes,
      errors: batch.errors,
    };
    const snapshot: SkillSnapshot = { source: state.watcher.source, skills: state.skills, hash: state.hash, errors: batch.errors };
    for (const listener of this.listeners) {
      try {
        await listener(signalled, snapshot);
      } catch (error) {
        this.options.logger?.warn({ source: state.watcher.source, error: String(error) }, 'a skill batch listener failed');
      }
    }
  }
}
