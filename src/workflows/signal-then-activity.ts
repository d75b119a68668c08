import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BenchActivities } from '../activities/bench-activities';

/** Benchmark baseline of an approval: wait for a signal, then run one no-op activity. */
export const goSignal = defineSignal('go');

export async function signalThenActivity(): Promise<void> {
  let go = false;
  setHandler(goSignal, () => void (go = true));
  await condition(() => go);
  const { noop } = proxyActivities<BenchActivities>({ startToCloseTimeout: '1m' });
  await noop(1);
}
