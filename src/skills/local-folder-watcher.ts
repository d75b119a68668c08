import { existsSync } from 'node:fs';
import chokidar, { type FSWatcher } from 'chokidar';
import type { SkillSnapshot } from '../protocol/skill-types';
import { isSkillFile } from './skill-file';
import { readSkillFolder } from './skill-source';
import { BatchQueue, SkillSetTracker, type SkillWatcher, type WatcherBatch } from './skill-watcher';
import { AllowedToolsResolver, type ToolResolver } from './tool-resolver';

/** What `new LocalFolderWatcher(folder, options)` takes. */
export interface LocalFolderWatcherOptions {
  /** Quiet time after the last file event before the folder is re-read. Default 500 ms. */
  debounceMs?: number;
  /** Maps skills to tool names. Default: `allowed-tools` (a manager's `toolResolver` overrides it). */
  resolver?: ToolResolver;
  /** How often a missing folder is checked for (it may come back). Default 1 s. */
  missingCheckMs?: number;
}

/**
 * Watches a folder of skills with chokidar (recursive, skill files only), debounced: a burst of
 * edits becomes one batch. Each settle re-reads the folder and diffs it against the snapshot, so
 * a save with no change in content yields nothing, and a malformed file keeps its previous
 * version. A removed folder removes its skills; the watcher keeps waiting for it to come back.
 * `source` is the folder as given: give an absolute path (runs name their sources by absolute path).
 * @example
 * import { LocalFolderWatcher } from 'durable-agents/skills';
 *
 * await using watcher = new LocalFolderWatcher('/srv/skills', { debounceMs: 200 });
 * const { skills } = await watcher.start();
 * for await (const batch of watcher.watch()) console.log(batch.changes.map((change) => `${change.kind} ${change.skillName}`));
 */
export class LocalFolderWatcher implements SkillWatcher {
  private readonly debounceMs: number;
  private readonly resolver: ToolResolver;
  private readonly queue = new BatchQueue();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private missingCheck: NodeJS.Timeout | null = null;
  private readonly tracker = new SkillSetTracker();
  private folderExisted = false;

  constructor(
    readonly source: string,
    private readonly options: LocalFolderWatcherOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 500;
    this.resolver = options.resolver ?? new AllowedToolsResolver();
  }

  /** Reads the folder (the baseline) and starts watching it. */
  async start(): Promise<SkillSnapshot> {
    const snapshot = readSkillFolder(this.source, this.source, this.resolver);
    this.tracker.reset(snapshot);
    this.folderExisted = existsSync(this.source);
    if (this.folderExisted) await this.openWatcher();
    // chokidar cannot watch a folder that is gone; this notices it leaving and coming back.
    this.missingCheck = setInterval(() => void this.checkFolder(), this.options.missingCheckMs ?? 1_000);
    return snapshot;
  }

  /** The batches, one per settled burst of edits, until `stop()`. */
  watch(): AsyncIterable<WatcherBatch> {
    return this.queue.iterate();
  }

  /** `stop()`, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** Closes the file watcher and ends `watch()`. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.missingCheck) clearInterval(this.missingCheck);
    await this.watcher?.close();
    this.watcher = null;
    this.queue.close();
  }

  private async openWatcher(): Promise<void> {
    const watcher = chokidar.watch(this.source, {
      ignoreInitial: true,
      ignored: (file, stats) => Boolean(stats?.isFile()) && !isSkillFile(file),
    });
    watcher.on('all', () => this.schedule());
    watcher.on('error', (error) => this.queue.close(error instanceof Error ? error : new Error(String(error))));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    this.watcher = watcher;
  }

  private async checkFolder(): Promise<void> {
    const exists = existsSync(this.source);
    if (exists === this.folderExisted) return;
    this.folderExisted = exists;
    await this.watcher?.close();
    this.watcher = null;
    if (exists) await this.openWatcher();
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.debounceMs);
  }

  private flush(): void {
    this.timer = null;
    const batch = this.tracker.next(readSkillFolder(this.source, this.source, this.resolver, this.tracker.skills));
    if (batch) this.queue.push(batch);
  }
}
