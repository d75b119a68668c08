/**
 * What a workflow task costs when the worker does not hold the run in its cache: it fetches the
 * whole history and replays it. A query to a closed run always takes that path, so its latency is
 * that cost, measured for runs of growing history size against a run of a few KB, interleaved.
 * This is what sets the default continue-as-new point (docs/long-runs.md): a task must stay well
 * below the 10 s workflow-task timeout on a busy worker.
 */
import type { AgentConfigInput } from '../src/config/agent-config';
import type { ModelScriptInput } from '../src/models/scripted-model';
import { statusQuery } from '../src/protocol/run-messages';
import { median, ms, noopScript, type BenchStack } from './bench-stack';

/** Bytes a `big` tool result adds to the history (64 KB of text, kept inline). */
const RESULT_BYTES = 64 * 1024;
/** History sizes measured, in MiB. */
const SIZES_MIB = [0.5, 1, 2, 4];
/** A run of many small steps, for the cost of events rather than bytes (about 4,000 events). */
const SMALL_STEPS = 450;

/** Scripts of runs that call the `big` tool `steps` times, then answer. */
export function replayCostScripts(): Record<string, ModelScriptInput> {
  const scripts: Record<string, ModelScriptInput> = {};
  for (const steps of [1, ...SIZES_MIB.map(stepsFor)]) {
    scripts[`replay-${steps}`] = {
      replies: [...Array.from({ length: steps }, (_, part) => ({ toolCalls: [{ name: 'big', args: { part } }] })), { text: 'done' }],
    };
  }
  scripts['replay-small-steps'] = noopScript(SMALL_STEPS);
  return scripts;
}

function stepsFor(mebibytes: number): number {
  return Math.ceil((mebibytes * 1024 * 1024) / RESULT_BYTES);
}

interface ClosedRun {
  label: string;
  bytes: number;
  events: number;
  query: () => Promise<unknown>;
}

/** Runs an agent to its end in one execution (no continue-as-new): its history's size, and a query that replays it. */
async function closedRun(stack: BenchStack, config: AgentConfigInput): Promise<ClosedRun> {
  const run = await stack.agents.startRun({ config, task: 'Work', historyEventLimit: 100_000, historySizeLimitBytes: 64 * 1024 * 1024 });
  await run.result();
  const info = (await run.workflow.describe()).raw.workflowExecutionInfo;
  return {
    label: '',
    bytes: Number(info?.historySizeBytes ?? 0),
    events: Number(info?.historyLength ?? 0),
    query: () => run.workflow.query(statusQuery),
  };
}

/** Runs one closed run per size, then times queries on each (a full replay each time), interleaved round by round. */
export async function measureReplayCost(stack: BenchStack, rounds: number): Promise<void> {
  const runs: ClosedRun[] = [];
  for (const steps of [1, ...SIZES_MIB.map(stepsFor)]) {
    // Inline results (no offload).
    const run = await closedRun(stack, {
      name: 'replay-cost',
      model: `scripted:replay-${steps}`,
      tools: ['big'],
      max_steps: steps + 1,
      offload_threshold: RESULT_BYTES * 2,
    });
    runs.push({ ...run, label: `${(run.bytes / 1024 / 1024).toFixed(2)} MiB` });
  }
  const small = await closedRun(stack, {
    name: 'replay-cost',
    model: 'scripted:replay-small-steps',
    tools: ['noop'],
    max_steps: SMALL_STEPS,
    loop_detection: false,
  });
  runs.push({ ...small, label: `${SMALL_STEPS} small steps (${small.events} events, ${(small.bytes / 1024 / 1024).toFixed(2)} MiB)` });
  const times = new Map<string, number[]>(runs.map(({ label }) => [label, []]));
  for (let round = 0; round < rounds; round++) {
    for (const { label, query } of runs) {
      const started = performance.now();
      await query();
      times.get(label)!.push(performance.now() - started);
    }
  }
  const [baseline, ...sized] = runs;
  const baselineMedian = median(times.get(baseline!.label)!);
  console.log(`Replay cost (a query to a closed run: fetch and replay its whole history; median of ${rounds}):`);
  console.log(`  ${baseline!.label} (baseline): ${ms(baselineMedian)}`);
  for (const { label, bytes, events } of sized) {
    const taken = median(times.get(label)!);
    const perMib = (taken - baselineMedian) / (bytes / 1024 / 1024);
    const perThousandEvents = (taken - baselineMedian) / (events / 1000);
    console.log(
      `  ${label}: ${ms(taken)}, ${(taken / baselineMedian).toFixed(1)}x the baseline; above it ${ms(perMib)} per MiB, ${ms(perThousandEvents)} per 1,000 events`,
    );
  }
}
