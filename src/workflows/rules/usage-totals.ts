// Token and cost totals of a run, pure: what each model call and each sub-agent adds.
import type { Usage } from '../../protocol/messages';
import type { ModelUsage, UsageSummary } from '../../protocol/run-types';
import { roundUsd } from '../../protocol/model-price';

/** Usage before the first call: no tokens, no cost. */
export function emptyUsage(): UsageSummary {
  return { inputTokens: 0, outputTokens: 0, byModel: {}, costUsd: 0, unpricedCalls: 0 };
}

/**
 * Adds one call of `model` to a run's usage: its tokens, and its cost as the worker priced it
 * (`null`: price unknown; `undefined`: a worker before pricing) — an unpriced call is counted in
 * `unpricedCalls`, never as zero.
 */
export function addUsage(summary: UsageSummary, model: string, usage: Usage, costUsd?: number | null): void {
  const perModel = (summary.byModel[model] ??= { inputTokens: 0, outputTokens: 0 });
  for (const target of [summary, perModel]) {
    target.inputTokens += usage.inputTokens;
    target.outputTokens += usage.outputTokens;
    if (usage.cachedInputTokens) target.cachedInputTokens = (target.cachedInputTokens ?? 0) + usage.cachedInputTokens;
    if (typeof costUsd === 'number') target.costUsd = roundUsd((target.costUsd ?? 0) + costUsd);
    else target.unpricedCalls = (target.unpricedCalls ?? 0) + 1;
  }
}

/** Adds a whole run's usage (a sub-agent's) to `summary`, model by model. */
export function addRunUsage(summary: UsageSummary, run: UsageSummary): void {
  for (const [model, used] of Object.entries(run.byModel)) {
    const perModel = (summary.byModel[model] ??= { inputTokens: 0, outputTokens: 0 });
    for (const target of [summary, perModel]) addModelUsage(target, used);
  }
}

function addModelUsage(target: ModelUsage, used: ModelUsage): void {
  target.inputTokens += used.inputTokens;
  target.outputTokens += used.outputTokens;
  if (used.cachedInputTokens) target.cachedInputTokens = (target.cachedInputTokens ?? 0) + used.cachedInputTokens;
  if (used.costUsd) target.costUsd = roundUsd((target.costUsd ?? 0) + used.costUsd);
  if (used.unpricedCalls) target.unpricedCalls = (target.unpricedCalls ?? 0) + used.unpricedCalls;
}

/** The cost of a run so far in USD (priced calls; 0 for runs before pricing). */
export function spentUsd(usage: UsageSummary): number {
  return usage.costUsd ?? 0;
}
