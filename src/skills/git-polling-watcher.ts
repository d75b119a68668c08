import path from 'node:path';
import type { SkillSnapshot } from '../protocol/skill-types';
import { checkoutFolder, skillsFolderOf, syncCheckout } from './git-checkout';
import { readSkillFolder } from './skill-source';
import { BatchQueue, SkillSetTracker, type SkillWatcher, type WatcherBatch } from './skill-watcher';
import { AllowedToolsResolver, type ToolResolver } from './tool-resolver';

/** What `new GitPollingWatcher(url, options)` takes. */
export interface GitPollingWatcherOptions {
  /** How often to pull. Default 300 s. */
  pollIntervalMs?: number;
  /** Where the clone lives (one folder per URL below it). */
  cacheDir: string;
  /**
   * The folder inside the repository that holds the skills. Default: the folder a GitHub
   * `…/tree/<branch>/<path>` URL names, else the whole repository.
   */
  subfolder?: string;
  /** Maps skills to tool names. Default: `allowed-tools` (a manager's `toolResolver` overrides it). */
  resolver?: ToolResolver;
  /** Where failed clones and pulls are reported (they are retried at the next poll). */
  logger?: { warn(meta: object, message: string): void; info(meta: object, message: string): void };
}

/**
 * Polls a git repository of skills with simple-git: clones it into a cache folder, then runs
 * `git pull --ff-only` at each interval and diffs the skills before and after. Nothing changed
 * means no batch. A pull that cannot fast-forward, a network error or a missing repository is
 * logged and tried again at the next poll; the previous skills stay. A GitHub URL of a folder,
 * `https://github.com/<owner>/<repo>/tree/<branch>/<path>`, clones that repository on that branch
 * and reads that folder (`parseGitSource`).
 * @example
 * import { GitPollingWatcher } from 'durable-agents/skills';
 *
 * await using watcher = new GitPollingWatcher('https://github.com/acme/shared-skills/tree/main/skills', {
 *   cacheDir: '/var/cache/skills',
 *   pollIntervalMs: 600_000,
 * });
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

  /** Clones (or fast-forwards) the repository and reads its skills: the baseline. Then polls. */
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

  /** The batches, one per poll that changed something, until `stop()`. */
  watch(): AsyncIterable<WatcherBatch> {
    return this.queue.iterate();
  }

  /** `stop()`, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
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
    return readSkillFolder(
      this.options.subfolder !== undefined ? path.join(this.folder, this.options.subfolder) : skillsFolderOf(this.folder, this.source),
      this.source,
      this.resolver,
      this.tracker.skills,
    );
  }
}
