import type { SkillChange, SkillFileError, SkillInfo, SkillSnapshot } from '../protocol/skill-types';
import { diffSkills } from './skill-diff';

/** One settled round of changes of a source (debounced file events, or one poll). */
export interface WatcherBatch {
  changes: SkillChange[];
  /** Files that could not be read as skills this round (their previous versions stay). */
  errors: SkillFileError[];
}

/**
 * The watcher contract, for any source of skills (a folder, a git repository, a database, an
 * HTTP API): `start()` reads the source and returns every skill, `watch()` yields batches of
 * changes against what was last reported, one per settle cycle and never an empty one, and
 * `stop()` makes the iterator end. A `watch()` that throws is restarted by the manager: `start()`
 * again, after a backoff. `readSkillFolder` and `SkillSetTracker` do the reading and diffing for
 * sources that end up as files.
 * @example
 * import { readSkillFolder, SkillSetTracker, type SkillWatcher, type WatcherBatch } from 'durable-agents/skills';
 *
 * // A source that re-reads a folder when told to (by a webhook, say).
 * class OnDemandSource implements SkillWatcher {
 *   private readonly tracker = new SkillSetTracker();
 *   private wake: (() => void) | null = null;
 *   private stopped = false;
 *   constructor(readonly source: string) {}
 *   async start() {
 *     const snapshot = readSkillFolder(this.source, this.source);
 *     this.tracker.reset(snapshot);
 *     return snapshot;
 *   }
 *   refresh() { this.wake?.(); }
 *   async *watch(): AsyncIterable<WatcherBatch> {
 *     while (!this.stopped) {
 *       await new Promise<void>((resolve) => (this.wake = resolve));
 *       const batch = this.tracker.next(readSkillFolder(this.source, this.source, undefined, this.tracker.skills));
 *       if (batch) yield batch;
 *     }
 *   }
 *   async stop() { this.stopped = true; this.wake?.(); }
 * }
 */
export interface SkillWatcher {
  /** The source key (an absolute folder path or a git URL). */
  readonly source: string;
  /** Reads the source now and returns every skill (also the baseline for later batches). */
  start(): Promise<SkillSnapshot>;
  /** The batches of changes since the last one (or since `start()`), until `stop()`. */
  watch(): AsyncIterable<WatcherBatch>;
  /** Makes `watch()` end; called by the manager's `stop()`. */
  stop(): Promise<void>;
}

/** A small async queue behind the watchers' iterators. */
export class BatchQueue {
  private readonly items: WatcherBatch[] = [];
  private waiting: ((result: IteratorResult<WatcherBatch>) => void) | null = null;
  private closed = false;
  private failure: Error | null = null;

  push(batch: WatcherBatch): void {
    if (this.closed) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: batch, done: false });
    } else this.items.push(batch);
  }

  /** Ends the iterator; with an error, the iterator throws it (so the manager restarts the watcher). */
  close(failure?: Error): void {
    this.closed = true;
    this.failure = failure ?? null;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      if (failure) {
        this.failure = null;
        resolve(Promise.reject(failure) as never);
      } else resolve({ value: undefined, done: true });
    }
  }

  async *iterate(): AsyncGenerator<WatcherBatch> {
    while (true) {
      const next = this.items.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.failure) {
        const failure = this.failure;
        this.failure = null;
        throw failure;
      }
      if (this.closed) return;
      const result = await new Promise<IteratorResult<WatcherBatch>>((resolve) => (this.waiting = resolve));
      if (result.done) return;
      yield result.value;
    }
  }
}

/**
 * What a watcher last reported: each fresh read of its source becomes a batch of real changes
 * (and of errors not reported yet), or nothing.
 * @example
 * const tracker = new SkillSetTracker();
 * tracker.reset(readSkillFolder(folder, folder));
 * // ... files change ...
 * const batch = tracker.next(readSkillFolder(folder, folder, undefined, tracker.skills)); // null: nothing changed
 */
export class SkillSetTracker {
  /** The skills last reported. */
  skills: SkillInfo[] = [];
  private reportedErrors = '';

  /** The baseline (the watcher's start). */
  reset(snapshot: SkillSnapshot): void {
    this.skills = snapshot.skills;
    this.reportedErrors = errorKey(snapshot.errors);
  }

  /** The changes from the last report to `snapshot` (which becomes the last report), or null when none. */
  next(snapshot: SkillSnapshot): WatcherBatch | null {
    const changes = diffSkills(this.skills, snapshot.skills);
    const key = errorKey(snapshot.errors);
    const errors = key === this.reportedErrors ? [] : snapshot.errors;
    this.skills = snapshot.skills;
    this.reportedErrors = key;
    return changes.length > 0 || errors.length > 0 ? { changes, errors } : null;
  }
}

function errorKey(errors: SkillFileError[]): string {
  return errors
    .map((error) => `${error.file}\n${error.message}`)
    .sort()
    .join('\n');
}
