import { proxyActivities } from '@temporalio/workflow';
import type { BaselineActivities } from './baseline-activities';

/**
 * The benchmark baseline: a bare workflow that calls `steps` no-op activities one after another,
 * with nothing of the agent runtime around them.
 */
export async function bareSteps(steps: number): Promise<number> {
  const { noop } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '1m' });
  for (let step = 1; step <= steps; step++) await noop(step);
  return steps;
}
