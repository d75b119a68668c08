import path from 'node:path';
import type { SkillSnapshot } from '../protocol/skill-types';
import { checkoutFolder, syncCheckout } from './git-checkout';
import { readSkillFolder } from './skill-source';
import { BatchQueue, SkillSetTracker, type SkillWatcher, type WatcherBatch } from './skill-watcher';
import { AllowedToolsResolver, type ToolResolver } from './tool-resolver';

export interface GitPollingWatcherOptions {
  /** How often to pull. Default 300 s. */
  pollIntervalMs?: number;
  /** Where the clone lives (one folder per URL below it). */
  cacheDir: string;
  /** The folder inside the repository that holds the skills. Default: the whole repository. */
  subfolder?: string;
  resolver?: ToolResolver;
  logger?: { warn(meta: object, message: string): void; info(meta: object, message: string): void };
}

/**
 * Polls a git repository of skills with simple-git: clones it into a cache folder, then runs
 * `git pull --ff-only` at each interval and diffs the skills before and after. Nothing changed
 * means no batch. A pull that cannot fast-forward, a network error or a missing repository is
 * logged and tried again at the next poll; the previous skills stay.
 */
export class GitPollingWatcher implements SkillWatcher {
  private readonly queue = new BatchQueue();
  private readonly folder: string;
  private readonly resolver: ToolResolver;
  private timer: NodeJS.Timeout | null = null;
  private readonly tracker = new SkillSetTracker();
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(
    readonly source: string,
    private readonly options: GitPollingWatcherOptions,
  ) {
    this.folder = checkoutFolder(options.cacheDir, source);
    this.resolver = options.resolver ?? new AllowedToolsResolver();
  }

  async start(): Promise<SkillSnapshot> {
    try {
      await syncCheckout(this.source, this.folder, this.abort.signal);
    } catch (error) {
      this.options.logger?.warn({ source: this.source, error: String(error) }, 'could not clone the skill repository; will retry');
    }
    const snapshot = this.read();
    this.tracker.reset(snapshot);
    this.schedule();
    return snapshot;
  }

  watch(): AsyncIterable<WatcherBatch> {
    return this.queue.iterate();
  }

  /** Ends at once, even while a pull runs (the pull is aborted). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
    this.queue.close();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll().finally(() => this.schedule()), this.options.pollIntervalMs ?? 300_000);
  }

  private async poll(): Promise<void> {
    try {
      await syncCheckout(this.source, this.folder, this.abort.signal);
    } catch (error) {
      if (!this.stopped)
        this.options.logger?.warn({ source: this.source, error: String(error) }, 'git pull --ff-only failed; keeping the previous skills');
      return;
    }
    if (this.stopped) return;
    const batch = this.tracker.next(this.read());
    if (batch) this.queue.push(batch);
  }

  private read(): SkillSnapshot {
    return readSkillFolder(path.join(this.folder, this.options.subfolder ?? ''), this.source, this.resolver, this.tracker.skills);
  }
}
