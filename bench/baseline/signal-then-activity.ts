import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BaselineActivities } from './baseline-activities';

/** Benchmark baseline of an approval: wait for a signal, then run one no-op activity. */
export const goSignal = defineSignal('go');

export async function signalThenActivity(): Promise<void> {
  let go = false;
  setHandler(goSignal, () => void (go = true));
  await condition(() => go);
  const { noop } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '1m' });
  await noop(1);
}
