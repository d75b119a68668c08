import type { ModelScriptInput } from '../src/models/scripted-model';
import { historyBytesPerStep } from '../test/support/history-bytes';
import { median, ms, type BenchStack } from './bench-stack';

/** Scripts: a parent that fans out to N children (each answers in one step), and big tool results. */
export function subagentScripts(): Record<string, ModelScriptInput> {
  const scripts: Record<string, ModelScriptInput> = {};
  for (const count of [1, 3, 7]) {
    scripts[`fanout${count}`] = {
      replies: [
        { toolCalls: [{ name: 'spawn_subagents', args: { jobs: Array.from({ length: count }, (_, index) => ({ task: `child job ${index}` })) } }] },
        { text: 'done' },
      ],
      variants: [{ taskIncludes: 'child job', replies: [{ text: 'child done' }] }],
    };
  }
  scripts.bigResults = { replies: [...Array.from({ length: 5 }, (_, part) => ({ toolCalls: [{ name: 'big', args: { part } }] })), { text: 'done' }] };
  return scripts;
}

async function timeFanout(stack: BenchStack, count: number): Promise<number> {
  const started = performance.now();
  const run = await stack.agents.startRun({
    config: { name: 'fanout', model: `scripted:fanout${count}`, tools: ['noop'], allow_parallel_subagents: true, max_parallel_subagents: 7 },
    task: 'fan out',
  });
  await run.result();
  return performance.now() - started;
}

export async function measureSubagents(stack: BenchStack, rounds: number): Promise<void> {
  await timeFanout(stack, 7);
  const samples: Record<number, number[]> = { 1: [], 3: [], 7: [] };
  for (let round = 0; round < rounds; round++) for (const count of [1, 3, 7]) samples[count]!.push(await timeFanout(stack, count));
  const one = median(samples[1]!);
  console.log(`Parallel sub-agents (parent run wall time, median of ${rounds} interleaved rounds; children answer in one step):`);
  for (const count of [1, 3, 7])
    console.log(`  ${count} children: ${ms(median(samples[count]!))}, ratio to 1 child ${(median(samples[count]!) / one).toFixed(2)}`);
}

async function bytesPerStep(stack: BenchStack, offloadThreshold: number): Promise<number> {
  const run = await stack.agents.startRun({
    config: { name: 'big', model: 'scripted:bigResults', tools: ['big'], offload_threshold: offloadThreshold },
    task: 'read',
  });
  await run.result();
  return historyBytesPerStep((await run.workflow.fetchHistory()).events ?? []).get(3) ?? 0;
}

export async function measureOffload(stack: BenchStack): Promise<void> {
  const withOffload = await bytesPerStep(stack, 16_000);
  const without = await bytesPerStep(stack, 100_000_000);
  console.log('History bytes per step with a 64 KB tool result (step 3):');
  console.log(`  offloaded (threshold 16,000): ${withOffload} B; not offloaded: ${without} B; ratio ${(withOffload / without).toFixed(3)}`);
}
