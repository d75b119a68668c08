// The skills library's engine: runs watchers, keeps each source's skill set, versions and publishes every batch.
import type { Logger } from 'pino';
import type { SkillBatch, SkillChange, SkillInfo, SkillSnapshot } from '../protocol/skill-types';
import { SkillEventBus } from './skill-event-bus';
import { diffSkills } from './skill-diff';
import { skillSetHash } from './skill-source';
import type { SkillWatcher, WatcherBatch } from './skill-watcher';
import { toToolResolver, type ToolResolver } from './tool-resolver';

/** What `new SkillSyncManager(...)` takes; every field is optional. */
export interface SkillSyncManagerOptions {
  /**
   * Maps each skill to the tools it brings, over what the watchers resolved: a `ToolResolver`, or a
   * record of skill name to one tool name or several (a `DictToolResolver`). Default: the
   * watchers' own (a SKILL.md's `allowed-tools`). The workers must resolve skills the same way
   * (`AgentPlugin({ skillResolver })`), since a run that reloads a source asks them.
   */
  toolResolver?: ToolResolver | Record<string, string | string[]>;
  /** The bus the `skill:*` events go to; default a new one (`manager.bus`), whose subscribers are yours to add. */
  bus?: SkillEventBus;
  /**
   * Builds instructions from the active skills of all sources (the source added first wins a name
   * clash): called at `start()` and after each batch, its text goes to the bus as
   * `skill:instructions` and is returned by `instructions()`. Runs build their own system prompt
   * with their config's `instructions_builder` (docs/skills.md says how to give them this text).
   */
  instructionsBuilder?: (skills: SkillInfo[]) => string;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Restart delays of a failed watcher: doubling from `initialMs` up to `maxMs`. Default 1 s to 60 s. */
  backoff?: { initialMs: number; maxMs: number };
}

/** Called with each applied batch (versioned) and the source's skills after it. */
export type SkillBatchListener = (batch: SkillBatch, snapshot: SkillSnapshot) => void | Promise<void>;

interface SourceState {
  watcher: SkillWatcher;
  skills: SkillInfo[];
  hash: string;
  version: number;
}

/**
 * Runs skill watchers and keeps the current skill set of each source: applies every batch, gives
 * it a version (monotonic per source), emits `skill:added`, `skill:modified`, `skill:removed` on
 * its bus, rebuilds instructions when given a builder, and hands the batch to listeners (the
 * `skills watch` process signals running runs from one, with a `RunNotifier`). Failures are
 * isolated: a watcher that throws is restarted with exponential backoff, and a subscriber or
 * listener that throws is logged. `await using` (or `Symbol.asyncDispose`) stops it.
 * @example
 * import { DictToolResolver, LocalFolderWatcher, RunNotifier, SkillSyncManager } from 'durable-agents/skills';
 *
 * await using manager = new SkillSyncManager({ toolResolver: { deploy: ['deploy_service', 'read_logs'] } });
 * manager.addWatcher(new LocalFolderWatcher('/srv/skills'));
 * manager.bus.on('skill:added', ({ skill, version }) => console.log(`+ ${skill.name} (v${version})`));
 * const notifier = new RunNotifier(agents.temporal);
 * manager.onBatch((batch) => notifier.notify(batch).then(() => undefined));
 * await manager.start();
 */
export class SkillSyncManager {
  /** Where the `skill:*` events go: subscribe with `bus.on(...)`. */
  readonly bus: SkillEventBus;
  private readonly sources = new Map<string, SourceState>();
  private readonly listeners: SkillBatchListener[] = [];
  private readonly tasks: Promise<void>[] = [];
  private readonly resolver: ToolResolver | null;
  private running = false;
  private builtInstructions: string | null = null;
  private readonly backoff: { initialMs: number; maxMs: number };

  constructor(private readonly options: SkillSyncManagerOptions = {}) {
    this.bus = options.bus ?? new SkillEventBus(options.logger);
    this.backoff = options.backoff ?? { initialMs: 1_000, maxMs: 60_000 };
    this.resolver = options.toolResolver ? toToolResolver(options.toolResolver) : null;
  }

  /** Registers a watcher (one per source key); call before `start()`. */
  addWatcher(watcher: SkillWatcher): void {
    if (this.running) throw new Error('SkillSyncManager.addWatcher: add watchers before start()');
    this.sources.set(watcher.source, { watcher, skills: [], hash: skillSetHash([]), version: 0 });
  }

  /** Adds a listener of applied batches; returns a function that removes it. */
  onBatch(listener: SkillBatchListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** The current skills of a source, with its version and hash. */
  snapshot(source: string): SkillSnapshot & { version: number } {
    const state = this.sources.get(source);
    if (!state) throw new Error(`unknown skill source ${source} (sources: ${[...this.sources.keys()].join(', ') || 'none'})`);
    return { source, skills: [...state.skills], hash: state.hash, errors: [], version: state.version };
  }

  /** The active skills of all sources, in the order the watchers were added (the first wins a name clash). */
  skills(): SkillInfo[] {
    const byName = new Map<string, SkillInfo>();
    for (const state of this.sources.values()) for (const skill of state.skills) if (!byName.has(skill.name)) byName.set(skill.name, skill);
    return [...byName.values()];
  }

  /** What the `instructionsBuilder` last built; null without a builder or before `start()`. */
  instructions(): string | null {
    return this.builtInstructions;
  }

  /** Reads every source (each watcher's `start()`), then follows each watcher in a task of its own. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    for (const state of this.sources.values()) {
      const snapshot = await state.watcher.start();
      state.skills = this.resolved(snapshot.skills);
      state.hash = skillSetHash(state.skills);
      for (const error of snapshot.errors) this.options.logger?.warn({ file: error.file }, error.message);
      this.tasks.push(this.run(state));
    }
    await this.rebuildInstructions();
  }

  /** Stops every watcher and waits for their tasks to end. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.sources.values()].map((state) => state.watcher.stop().catch(() => undefined)));
    await Promise.all(this.tasks.splice(0));
  }

  /** `stop()`, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
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
          await this.apply(state, { changes: diffSkills(state.skills, this.resolved(snapshot.skills)), errors: snapshot.errors });
        } catch (restartError) {
          this.options.logger?.error({ source: state.watcher.source, error: String(restartError) }, 'skill watcher restart failed');
        }
      }
    }
  }

  private async apply(state: SourceState, watcherBatch: WatcherBatch): Promise<void> {
    const batch = { changes: this.resolvedChanges(watcherBatch.changes), errors: watcherBatch.errors };
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
    if (batch.changes.length > 0) await this.rebuildInstructions();
    const source = state.watcher.source;
    const signalled: SkillBatch = { source, version, previousHash, hash: state.hash, changes: batch.changes, errors: batch.errors };
    const snapshot: SkillSnapshot = { source, skills: state.skills, hash: state.hash, errors: batch.errors };
    for (const listener of [...this.listeners]) {
      try {
        await listener(signalled, snapshot);
      } catch (error) {
        this.options.logger?.warn({ source, error: String(error) }, 'a skill batch listener failed');
      }
    }
  }

  private async rebuildInstructions(): Promise<void> {
    const builder = this.options.instructionsBuilder;
    if (!builder) return;
    const skills = this.skills();
    try {
      this.builtInstructions = builder(skills);
    } catch (error) {
      this.options.logger?.warn({ error: String(error) }, 'the skills instructions builder failed; keeping the previous instructions');
      return;
    }
    await this.bus.emit('skill:instructions', { instructions: this.builtInstructions, skills });
  }

  /** The skills with the manager's resolver's tools (the watchers' when it has none). */
  private resolved(skills: SkillInfo[]): SkillInfo[] {
    const resolver = this.resolver;
    return resolver ? skills.map((skill) => ({ ...skill, tools: resolver.resolve(skill) })) : skills;
  }

  private resolvedChanges(changes: SkillChange[]): SkillChange[] {
    if (!this.resolver) return changes;
    // A modification the watcher saw may leave the resolved tools as they were: still a change (the content moved).
    return changes.map((change) => (change.skill ? { ...change, skill: this.resolved([change.skill])[0]! } : change));
  }
}
