// Pushing skill batches into the running runs bound to their source (signals found by a visibility query).
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { skillsChangedSignal } from '../protocol/run-messages';
import { AgentSkillSourcesAttribute } from '../protocol/search-attributes';
import type { SkillBatch } from '../protocol/skill-types';

/** How many runs one pass signalled, and how many signals failed. */
export interface NotifyResult {
  signalled: number;
  failed: number;
}

/** What `new RunNotifier(client, options)` takes. */
export interface RunNotifierOptions {
  /** Where each batch's pushes are logged (one line a batch, one more for a second pass that reached runs). */
  logger?: Pick<Logger, 'info' | 'warn'>;
  /** When the second pass runs, after the first. Default 2 s; 0: no second pass. */
  settleMs?: number;
}

/**
 * Pushes skill batches into running runs: a visibility query finds every running run bound to the
 * source (the AgentSkillSources search attribute) and each gets the batch as a `skillsChanged`
 * signal. One run failing does not stop the rest. Visibility lags behind run starts, so a second
 * pass after `settleMs` signals the runs the first pass did not reach (not listed yet, or whose
 * signal failed); a run that gets a batch twice ignores the second (same version).
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { LocalFolderWatcher, RunNotifier, SkillSyncManager } from 'durable-agents/skills';
 *
 * const agents = await AgentClient.connect();
 * const notifier = new RunNotifier(agents.temporal, { logger });
 * const manager = new SkillSyncManager();
 * manager.addWatcher(new LocalFolderWatcher('/srv/skills'));
 * manager.onBatch(async (batch) => void (await notifier.notify(batch)));
 * await manager.start();
 */
export class RunNotifier {
  constructor(
    private readonly client: Client,
    private readonly options: RunNotifierOptions = {},
  ) {}

  /** Signals the batch to every running run bound to its source; resolves with the first pass (the second runs later, in the background). */
  async notify(batch: SkillBatch): Promise<NotifyResult> {
    const reached = new Set<string>();
    const first = await this.signalAll(batch, reached);
    this.options.logger?.info({ source: batch.source, version: batch.version, ...first }, 'skill batch pushed to running runs');
    const settleMs = this.options.settleMs ?? 2_000;
    if (settleMs > 0) {
      setTimeout(() => void this.secondPass(batch, reached).catch(() => undefined), settleMs).unref();
    }
    return first;
  }

  private async secondPass(batch: SkillBatch, reached: Set<string>): Promise<void> {
    const second = await this.signalAll(batch, reached);
    if (second.signalled + second.failed === 0) return;
    this.options.logger?.info(
      { source: batch.source, version: batch.version, ...second, pass: 2 },
      'skill batch pushed to runs the first pass did not reach (not listed by visibility yet, or their signal failed)',
    );
  }

  /** Signals the running runs of the source not in `reached`, adding each one signalled. */
  private async signalAll(batch: SkillBatch, reached: Set<string>): Promise<NotifyResult> {
    const query = `${AgentSkillSourcesAttribute.name} = '${batch.source.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running'`;
    const result: NotifyResult = { signalled: 0, failed: 0 };
    const signals: Promise<void>[] = [];
    for await (const execution of this.client.workflow.list({ query })) {
      // By workflow id: a run that continued as new is the same run, signalled at its latest execution.
      const key = execution.workflowId;
      if (reached.has(key)) continue;
      signals.push(
        this.client.workflow
          .getHandle(execution.workflowId)
          .signal(skillsChangedSignal, batch)
          .then(() => {
            reached.add(key);
            result.signalled++;
          })
          .catch((error: unknown) => {
            result.failed++;
            this.options.logger?.warn({ workflowId: execution.workflowId, error: String(error) }, 'could not signal a run about skill changes');
          }),
      );
    }
    await Promise.all(signals);
    return result;
  }
}
