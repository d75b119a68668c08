import { randomUUID } from 'node:crypto';
import type { AgentClient } from '../src/client/agent-client';
import type { bareSteps } from './baseline/bare-steps';
import { historyBytesPerStep } from '../test/support/history-bytes';
import { eventTime } from '../src/history/history-events';
import { median, ms, type BenchStack } from './bench-stack';

export const STEPS = 10;

/** A 10-step run's wall time, whether it started eagerly, and how soon its first workflow task was done. */
async function timeAgentRunWithStart(agents: AgentClient): Promise<{ ms: number; eagerlyStarted: boolean; firstTaskMs: number }> {
  const started = performance.now();
  const run = await agents.startRun({ config: { name: 'bench', model: 'scripted:steps10', tools: ['noop'], max_steps: STEPS }, task: 'go' });
  const result = await run.result();
  const wall = performance.now() - started;
  if (result.steps !== STEPS) throw new Error(`expected ${STEPS} steps, got ${result.steps}`);
  // The server's clock from the start to the first workflow task's completion: the part of a run
  // eager start can shorten (the first task comes back in the start call's answer).
  const events = (await run.workflow.fetchHistory()).events ?? [];
  const firstTaskDone = events.find((event) => event.workflowTaskCompletedEventAttributes);
  const firstTaskMs = firstTaskDone && events[0] ? eventTime(firstTaskDone) - eventTime(events[0]) : Number.NaN;
  // The SDK's start handle says whether the start was eager; RunHandle keeps it as its workflow handle.
  return { ms: wall, eagerlyStarted: (run.workflow as { eagerlyStarted?: boolean }).eagerlyStarted === true, firstTaskMs };
}

/** A 10-step run's wall time (model step + no-op tool per step). */
export async function timeAgentRun(agents: AgentClient): Promise<number> {
  return (await timeAgentRunWithStart(agents)).ms;
}

async function timeBareRun(stack: BenchStack, activities: number): Promise<number> {
  const started = performance.now();
  await stack.agents.temporal.workflow.execute<typeof bareSteps>('bareSteps', {
    taskQueue: stack.baselineTaskQueue,
    workflowId: `bare-${randomUUID()}`,
    args: [activities],
  });
  return performance.now() - started;
}

/**
 * Per-step overhead against a bare workflow, and the latency levers, interleaved round by round.
 * The order of the four runs reverses every other round, so no variant always follows the same
 * one (a run right after another on the same server used to meet that server's task reader still
 * throttled: see docs/performance.md, "Eager workflow start").
 */
export async function measureStepOverhead(eagerOn: BenchStack, eagerOff: BenchStack, rounds: number): Promise<void> {
  for (const stack of [eagerOn, eagerOff]) {
    await timeAgentRun(stack.agents);
    await timeBareRun(stack, STEPS * 2);
  }
  const samples = { agent: [] as number[], bare: [] as number[], eagerStart: [] as number[], noEagerActivities: [] as number[] };
  const firstTask = { eager: [] as number[], notEager: [] as number[] };
  let eagerlyStarted = 0;
  const variants: Array<[keyof typeof samples, () => Promise<number>]> = [
    [
      'agent',
      async () => {
        const run = await timeAgentRunWithStart(eagerOn.agents);
        firstTask.notEager.push(run.firstTaskMs);
        return run.ms;
      },
    ],
    ['bare', () => timeBareRun(eagerOn, STEPS * 2)],
    [
      'eagerStart',
      async () => {
        const run = await timeAgentRunWithStart(eagerOn.eagerAgents);
        if (run.eagerlyStarted) eagerlyStarted++;
        firstTask.eager.push(run.firstTaskMs);
        return run.ms;
      },
    ],
    ['noEagerActivities', () => timeAgentRun(eagerOff.agents)],
  ];
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of round % 2 === 0 ? variants : [...variants].reverse()) samples[name].push(await run());
  }
  const agent = median(samples.agent);
  const bare = median(samples.bare);
  console.log(`Per-step overhead (median of ${rounds} interleaved rounds; ${STEPS} steps = ${STEPS * 2} activities):`);
  console.log(`  agent run (model step + no-op tool per step): ${ms(agent)} total, ${ms(agent / STEPS)} per step`);
  console.log(`  bare workflow, ${STEPS * 2} no-op activities:          ${ms(bare)} total, ${ms(bare / STEPS)} per step`);
  console.log(`  ratio agent / bare:                            ${(agent / bare).toFixed(2)}`);
  const eagerStart = median(samples.eagerStart);
  const noEagerActivities = median(samples.noEagerActivities);
  const roundRatios = samples.eagerStart.map((value, index) => (value / samples.agent[index]!).toFixed(2)).join(', ');
  console.log('Latency levers (agent run, medians of the same rounds):');
  console.log(
    `  eager workflow start on / off:    ${ms(eagerStart)} / ${ms(agent)}, ratio ${(eagerStart / agent).toFixed(2)} (rounds ${roundRatios}; ${eagerlyStarted} of ${rounds} started eagerly)`,
  );
  console.log(
    `    start → first workflow task completed (server clock): ${ms(median(firstTask.eager))} eager, ${ms(median(firstTask.notEager))} not`,
  );
  console.log(`  eager activity dispatch on / off: ${ms(agent)} / ${ms(noEagerActivities)}, ratio ${(agent / noEagerActivities).toFixed(2)}`);
}

/** History bytes that step 5 and step 49 add to one 50-step run. */
export async function measureHistoryBytes(stack: BenchStack): Promise<void> {
  const run = await stack.agents.startRun({
    config: { name: 'bench', model: 'scripted:steps50', tools: ['noop'], max_steps: 50, loop_detection: false },
    task: 'go',
  });
  await run.result();
  const perStep = historyBytesPerStep((await run.workflow.fetchHistory()).events ?? []);
  const at5 = perStep.get(5) ?? 0;
  const at49 = perStep.get(49) ?? 0;
  console.log('History bytes per step (one 50-step run):');
  console.log(`  step 5: ${at5} B, step 49: ${at49} B (the last tool step), ratio ${(at49 / at5).toFixed(2)}`);
}

/**
 * This workflow code against an older build of it (`BENCH_BASELINE_BUNDLE`, e.g. bundled from the
 * commit before a refactor): the same agent run on two workers of one process, interleaved.
 */
export async function measureCodeAgainstBaseline(stack: BenchStack, rounds: number): Promise<void> {
  const baseline = stack.baselineCodeAgents;
  if (!baseline) return;
  await timeAgentRun(stack.agents);
  await timeAgentRun(baseline);
  const current: number[] = [];
  const older: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Each side goes first in every other round, so neither gains from the other's warm-up.
    if (round % 2 === 0) current.push(await timeAgentRun(stack.agents));
    older.push(await timeAgentRun(baseline));
    if (round % 2 === 1) current.push(await timeAgentRun(stack.agents));
  }
  console.log(`This workflow code against BENCH_BASELINE_BUNDLE (median of ${rounds} interleaved rounds, ${STEPS} steps):`);
  console.log(
    `  per step: ${ms(median(current) / STEPS)} now, ${ms(median(older) / STEPS)} baseline, ratio ${(median(current) / median(older)).toFixed(2)}`,
  );
}
