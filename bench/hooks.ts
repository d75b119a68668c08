// The cost of lifecycle hooks: the same 10-step run on a worker without hooks and on one with a no-op before-tool hook.
import { median, ms, type BenchStack } from './bench-stack';
import { STEPS, timeAgentRun } from './step-overhead';

/**
 * A run on a worker with one no-op before-tool hook against the same run on a worker without
 * hooks (same process, same server), interleaved, each side first in every other round. The hook
 * itself costs nothing: what is measured is what the runtime adds once a worker has hooks (the
 * hook context in model step inputs, the points and decisions in their results).
 */
export async function measureHooks(stack: BenchStack, rounds: number): Promise<void> {
  const hooked = stack.hookedAgents;
  if (!hooked) return;
  await timeAgentRun(stack.agents);
  await timeAgentRun(hooked);
  const plain: number[] = [];
  const withHook: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) plain.push(await timeAgentRun(stack.agents));
    withHook.push(await timeAgentRun(hooked));
    if (round % 2 === 1) plain.push(await timeAgentRun(stack.agents));
  }
  console.log(`Lifecycle hooks (median of ${rounds} interleaved rounds, ${STEPS} steps):`);
  console.log(
    `  per step: ${ms(median(withHook) / STEPS)} with one no-op before-tool hook, ${ms(median(plain) / STEPS)} without hooks, ratio ${(median(withHook) / median(plain)).toFixed(2)}`,
  );
}
