import { resolveTemporalTarget } from '../../connection/temporal-target';
import { LocalFolderWatcher } from '../../skills/local-folder-watcher';
import { RunNotifier } from '../../skills/run-notifier';
import { logSkillEvents, SkillMetrics } from '../../skills/skill-event-bus';
import path from 'node:path';
import { DEFAULT_DATA_DIR } from '../../devserver/dev-server';
import { GitPollingWatcher } from '../../skills/git-polling-watcher';
import { isGitSource, skillSourceKey } from '../../skills/skill-source';
import { SkillSyncManager } from '../../skills/skill-sync-manager';
import { createProcessLogger } from '../../worker/logger';
import { AgentClient } from '../../client/agent-client';
import { waitForInterrupt } from './dev-command';

/**
 * `skills watch <folder | git URL>...`: the watcher process. Watches skill folders (chokidar) and git
 * repositories (polling) and signals every running
 * run bound to them with each batch of changes, until Ctrl-C.
 */
export async function skillsWatchCommand(sources: string[], options: { debounce?: string; poll?: string }): Promise<void> {
  const logger = createProcessLogger('skills-watch', process.env.LOG_LEVEL ?? 'info');
  const agents = await AgentClient.connect(resolveTemporalTarget());
  const manager = new SkillSyncManager({ logger });
  logSkillEvents(manager.bus, logger);
  const metrics = new SkillMetrics(manager.bus);
  for (const source of sources) {
    const key = skillSourceKey(source);
    if (isGitSource(key)) {
      manager.addWatcher(
        new GitPollingWatcher(key, {
          cacheDir: process.env.AGENT_SKILL_CACHE ?? path.join(DEFAULT_DATA_DIR, 'skill-cache', 'watcher'),
          pollIntervalMs: options.poll ? Number(options.poll) * 1000 : undefined,
          logger,
        }),
      );
    } else {
      manager.addWatcher(new LocalFolderWatcher(key, { debounceMs: options.debounce ? Number(options.debounce) : undefined }));
    }
  }
  const notifier = new RunNotifier(agents.temporal, { logger });
  manager.onBatch(async (batch) => void (await notifier.notify(batch)));
  await manager.start();
  console.log(`Watching ${sources.map((source) => skillSourceKey(source)).join(', ')}; Ctrl-C to stop.`);
  await waitForInterrupt();
  await manager.stop();
  await agents.close();
  console.log(`Stopped. Changes seen: ${JSON.stringify(metrics.counts)}`);
}
