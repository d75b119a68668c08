import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { skillsChangedSignal } from '../protocol/run-messages';
import { AgentSkillSourcesAttribute } from '../protocol/search-attributes';
import type { SkillBatch } from '../protocol/skill-types';

export interface NotifyResult {
  signalled: number;
  failed: number;
}

/**
 * Pushes skill batches into running runs: a visibility query finds every running run bound to the
 * source (the AgentSkillSources search attribute) and each gets the batch as a signal. One run
 * failing does not stop the rest. A second pass after `settleMs` reaches runs that visibility did
 * not list yet; runs that already applied the batch ignore it (same version).
 */
export class RunNotifier {
  constructor(
    private readonly client: Client,
    private readonly options: { logger?: Pick<Logger, 'info' | 'warn'>; settleMs?: number } = {},
  ) {}

  async notify(batch: SkillBatch): Promise<NotifyResult> {
    const first = await this.signalAll(batch);
    const settleMs = this.options.settleMs ?? 2_000;
    if (settleMs > 0) {
      setTimeout(() => void this.signalAll(batch).catch(() => undefined), settleMs).unref();
    }
    return first;
  }

  private async signalAll(batch: SkillBatch): Promise<NotifyResult> {
    const query = `${AgentSkillSourcesAttribute.name} = '${batch.source.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running'`;
    const result: NotifyResult = { signalled: 0, failed: 0 };
    const signals: Promise<void>[] = [];
    for await (const execution of this.client.workflow.list({ query })) {
      signals.push(
        this.client.workflow
          .getHandle(execution.workflowId)
          .signal(skillsChangedSignal, batch)
          .then(() => void result.signalled++)
          .catch((error: unknown) => {
            result.failed++;
            this.options.logger?.warn({ workflowId: execution.workflowId, error: String(error) }, 'could not signal a run about skill changes');
          }),
      );
    }
    await Promise.all(signals);
    this.options.logger?.info({ source: batch.source, version: batch.version, ...result }, 'skill batch pushed to running runs');
    return result;
  }
}
