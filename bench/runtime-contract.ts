import type { AgentClient } from '../src/client/agent-client';
import { median, ms, type BenchStack } from './bench-stack';
import { STEPS } from './step-overhead';

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/**
 * A run blocked in a tool; the message is injected, the tool released, and we time until the next
 * model call sees the message. Baseline: the same run, released without an injection, timed until
 * its next model call.
 */
async function injectionLatency(stack: BenchStack, inject: boolean): Promise<number> {
  const run = await stack.agents.startRun({ config: { name: 'listener', model: 'scripted:gated-step', tools: ['gate'] }, task: 'wait' });
  await waitFor(() => stack.gates.has(run.workflowId));
  let seenAt = 0;
  stack.onModelCall = (call) => {
    if (call.replyIndex === 1 && call.request.messages.some((message) => message.role === 'tool')) seenAt = performance.now();
  };
  const sent = performance.now();
  if (inject) await run.inject('also check the docs');
  stack.gates.get(run.workflowId)!();
  await waitFor(() => seenAt > 0);
  await run.result();
  stack.gates.delete(run.workflowId);
  return seenAt - sent;
}

async function timeRun(agents: AgentClient, budget: boolean): Promise<number> {
  const started = performance.now();
  const run = await agents.startRun({
    config: {
      name: 'bench',
      model: 'scripted:steps10',
      tools: ['noop'],
      max_steps: STEPS,
      ...(budget ? { budget_awareness: 'per-message', context_window: 128_000 } : {}),
    },
    task: 'go',
  });
  await run.result();
  return performance.now() - started;
}

export async function measureRuntimeContract(stack: BenchStack, rounds: number): Promise<void> {
  await injectionLatency(stack, true);
  const injected: number[] = [];
  const plain: number[] = [];
  const withBudget: number[] = [];
  const withoutBudget: number[] = [];
  for (let round = 0; round < rounds; round++) {
    injected.push(await injectionLatency(stack, true));
    plain.push(await injectionLatency(stack, false));
    withBudget.push(await timeRun(stack.agents, true));
    withoutBudget.push(await timeRun(stack.agents, false));
  }
  console.log(`Message injection (sent → in the next model call's input, tool released at once; median of ${rounds}):`);
  console.log(
    `  with an injected message: ${ms(median(injected))}, same run without one: ${ms(median(plain))}, ratio ${(median(injected) / median(plain)).toFixed(2)}`,
  );
  console.log(`Budget accounting (per-message advisories, ${STEPS}-step run; median of ${rounds}):`);
  console.log(`  on: ${ms(median(withBudget))}, off: ${ms(median(withoutBudget))}, ratio ${(median(withBudget) / median(withoutBudget)).toFixed(2)}`);
}
