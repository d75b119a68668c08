/**
 * `durable-agents/skills`: skill hot reload as a library, for a watcher process of your own.
 * Watch sources (`LocalFolderWatcher`, `GitPollingWatcher`, or any `SkillWatcher`), keep their
 * skills with a `SkillSyncManager` (tool resolver, event bus, instructions builder), and push each
 * batch into the running runs bound to the source with a `RunNotifier`. `durable-agents skills
 * watch` is this, ready-made. docs/skills.md describes each piece.
 *
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { GitPollingWatcher, LocalFolderWatcher, RunNotifier, SkillSyncManager } from 'durable-agents/skills';
 *
 * const agents = await AgentClient.connect();
 * await using manager = new SkillSyncManager({ toolResolver: { deploy: ['deploy_service', 'read_logs'] } });
 * manager.addWatcher(new LocalFolderWatcher('/srv/skills'));
 * manager.addWatcher(new GitPollingWatcher('https://github.com/acme/shared-skills/tree/main/skills', { cacheDir: '/var/cache/skills' }));
 * manager.bus.on('skill:modified', ({ newSkill }) => console.log(`skill ${newSkill.name} changed`));
 * const notifier = new RunNotifier(agents.temporal);
 * manager.onBatch(async (batch) => void (await notifier.notify(batch)));
 * await manager.start();
 *
 * @packageDocumentation
 */

// The manager and its events
export { SkillSyncManager } from './skill-sync-manager';
export type { SkillBatchListener, SkillSyncManagerOptions } from './skill-sync-manager';
export { logSkillEvents, SkillEventBus, SkillMetrics } from './skill-event-bus';
export type { SkillEventHandler, SkillEvents } from './skill-event-bus';

// Sources: the contract, the two watchers, and the pieces a custom source reads and diffs with
export type { SkillWatcher, WatcherBatch } from './skill-watcher';
export { SkillSetTracker } from './skill-watcher';
export { LocalFolderWatcher } from './local-folder-watcher';
export type { LocalFolderWatcherOptions } from './local-folder-watcher';
export { GitPollingWatcher } from './git-polling-watcher';
export type { GitPollingWatcherOptions } from './git-polling-watcher';
export { parseGitSource } from './git-source-location';
export type { GitSourceLocation } from './git-source-location';
export { readSkillFolder } from './skill-source';
export { SkillRegistry } from './skill-registry';
export type { LoadedSkills } from './skill-registry';

// Skills to tools
export { AllowedToolsResolver, DictToolResolver, FirstMatchResolver } from './tool-resolver';
export type { ToolResolver } from './tool-resolver';

// Into running runs
export { RunNotifier } from './run-notifier';
export type { NotifyResult, RunNotifierOptions } from './run-notifier';

// What skills and batches look like
export type { SkillBatch, SkillChange, SkillChangeKind, SkillFileError, SkillInfo, SkillSnapshot } from '../protocol/skill-types';
