import { randomUUID } from 'node:crypto';
import type { bareSteps } from './baseline/bare-steps';
import { AGENT_LIKE_SIZES, type bareStepsLikeAnAgent, type LikeAnAgentParts } from './baseline/bare-steps-like-an-agent';
import { AgentCostUsdAttribute, AgentNameAttribute, AgentStatusAttribute } from '../src/protocol/search-attributes';
import { median, ms, noopScript, startBenchStack, type BenchStack } from './bench-stack';
import { processCpuMsOf, splitThreadCpu, threadCpuMs, type ThreadCpuSplit } from './process-cpu';

/**
 * Throughput: N agent runs started at once (5 model steps + 4 no-op tools, scripted model) against
 * N bare workflows of 9 no-op activities started at once, on the same server and worker process,
 * interleaved batch by batch. See docs/performance.md.
 */

/** Model steps of one agent run: 4 that call the no-op tool, then the answer (9 activities). */
export const THROUGHPUT_STEPS = 5;
const ACTIVITIES = THROUGHPUT_STEPS * 2 - 1;

export function throughputScripts() {
  return { throughput: noopScript(THROUGHPUT_STEPS) };
}

/** Concurrent runs per batch: 50 and 200; 1000 too with BENCH_THROUGHPUT_MAX=1000 (about 6 more minutes here). */
export function throughputSizes(): number[] {
  const max = Number(process.env.BENCH_THROUGHPUT_MAX ?? 200);
  return [50, 200, 1000].filter((size) => size <= max);
}

interface Batch {
  wallMs: number;
  /** Each run's start call → its result, ms. */
  latencies: number[];
  /** CPU time of this process (the worker, the baseline worker and the client), ms. */
  processCpuMs: number;
  /** CPU time of the dev server's process, ms (null where /proc is missing). */
  serverCpuMs: number | null;
  /** This process's CPU by thread (Linux; all zero elsewhere). */
  threads: ThreadCpuSplit;
}

async function timeBatch(stack: BenchStack, size: number, runOne: () => Promise<void>): Promise<Batch> {
  const cpuBefore = process.cpuUsage();
  const serverBefore = processCpuMsOf(stack.server.pid);
  const threadsBefore = threadCpuMs();
  const started = performance.now();
  const latencies = await Promise.all(
    Array.from({ length: size }, async () => {
      const runStarted = performance.now();
      await runOne();
      return performance.now() - runStarted;
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const threads = splitThreadCpu(threadsBefore, threadCpuMs());
  const serverAfter = processCpuMsOf(stack.server.pid);
  return {
    wallMs,
    latencies,
    processCpuMs: (cpu.user + cpu.system) / 1000,
    serverCpuMs: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    threads,
  };
}

async function agentRun(stack: BenchStack): Promise<void> {
  await agentRunOn(stack.agents);
}

/** The same agent run on the worker of an older build of the workflow code (`BENCH_BASELINE_BUNDLE`). */
async function baselineCodeAgentRun(stack: BenchStack): Promise<void> {
  await agentRunOn(stack.baselineCodeAgents!);
}

async function agentRunOn(agents: BenchStack['agents']): Promise<void> {
  const run = await agents.startRun({
    config: { name: 'throughput', model: 'scripted:throughput', tools: ['noop'], max_steps: THROUGHPUT_STEPS },
    task: 'go',
  });
  const result = await run.result();
  if (result.steps !== THROUGHPUT_STEPS) throw new Error(`expected ${THROUGHPUT_STEPS} steps, got ${result.steps}`);
}

async function bareRun(stack: BenchStack): Promise<void> {
  await stack.agents.temporal.workflow.execute<typeof bareSteps>('bareSteps', {
    taskQueue: stack.baselineTaskQueue,
    workflowId: `bare-${randomUUID()}`,
    args: [ACTIVITIES],
  });
}

/** A bare workflow with an agent run's events, search attributes and payload sizes (`bareStepsLikeAnAgent`). */
async function bareLikeAnAgentRun(stack: BenchStack, parts: LikeAnAgentParts): Promise<void> {
  await stack.agents.temporal.workflow.execute<typeof bareStepsLikeAnAgent>('bareStepsLikeAnAgent', {
    taskQueue: stack.baselineTaskQueue,
    workflowId: `bare-like-agent-${randomUUID()}`,
    args: [ACTIVITIES, 'i'.repeat(parts.bytes ? AGENT_LIKE_SIZES.input : 1), parts],
    typedSearchAttributes: parts.events
      ? [
          { key: AgentNameAttribute, value: 'throughput-like-agent' },
          { key: AgentStatusAttribute, value: 'running' },
          { key: AgentCostUsdAttribute, value: 0 },
        ]
      : [],
  });
}

/**
 * BENCH_THROUGHPUT_LIKE_AGENT: `1` adds a side of bare workflows with an agent run's events (patch
 * markers, search attributes) and payload sizes; `events` or `bytes` adds that part alone.
 * BENCH_THROUGHPUT_ONE_MARKER=1 adds the same side again with one patch marker in place of three.
 */
function likeAgentSides(stack: BenchStack): Side[] {
  const choice = process.env.BENCH_THROUGHPUT_LIKE_AGENT;
  if (!choice) return [];
  const parts: LikeAnAgentParts = { events: choice !== 'bytes', bytes: choice !== 'events' };
  const what = parts.events && parts.bytes ? 'events and payload sizes' : parts.events ? 'events' : 'payload sizes';
  const sides: Side[] = [{ name: `bare workflows with an agent run's ${what}`, runOne: (on) => bareLikeAnAgentRun(on, parts), stack, batches: [] }];
  // BENCH_THROUGHPUT_ONE_MARKER=1: the same with one patch marker in place of three (a marker per release, not per change).
  if (parts.events && process.env.BENCH_THROUGHPUT_ONE_MARKER === '1') {
    sides.push({ name: `the same with one patch marker`, runOne: (on) => bareLikeAnAgentRun(on, { ...parts, oneMarker: true }), stack, batches: [] });
  }
  return sides;
}

/** Nearest-rank percentile. */
function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

interface Side {
  name: string;
  runOne: (stack: BenchStack) => Promise<void>;
  stack: BenchStack;
  batches: Batch[];
}

/** Batches of every side, interleaved; the side that goes first turns each round. */
async function interleave(sides: Side[], size: number, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < sides.length; index++) {
      const side = sides[(index + round) % sides.length]!;
      side.batches.push(await timeBatch(side.stack, size, () => side.runOne(side.stack)));
    }
  }
}

const runsPerSecond = (size: number, batch: Batch) => (size * 1000) / batch.wallMs;

function describeSide(side: Side, size: number): string {
  const latencies = side.batches.flatMap((batch) => batch.latencies);
  const perRun = (total: (batch: Batch) => number) => median(side.batches.map((batch) => total(batch) / size));
  const server = side.batches.every((batch) => batch.serverCpuMs !== null) ? `, server ${ms(perRun((batch) => batch.serverCpuMs!))}` : '';
  return (
    `${side.name}: ${median(side.batches.map((batch) => runsPerSecond(size, batch))).toFixed(1)} runs/s, ` +
    `latency p50 ${ms(percentile(latencies, 0.5))} p95 ${ms(percentile(latencies, 0.95))}; ` +
    `CPU per run: worker process ${ms(perRun((batch) => batch.processCpuMs))}${server}; ` +
    // Threads that exited within the batch (the SDK's per-call watchdogs, Core's blocking pool) are in the process's figure only.
    `by thread: main ${ms(perRun((batch) => batch.threads.main))}, workflow thread ${ms(perRun((batch) => batch.threads.workflowThread))}, ` +
    `Core ${ms(perRun((batch) => batch.threads.core))}, other threads ${ms(perRun((batch) => batch.threads.other))}`
  );
}

/** Median over rounds of each round's wall-time ratio a / b (both sides ran in the same round), and each round's. */
function roundRatio(a: Side, b: Side): string {
  const ratios = a.batches.map((batch, round) => batch.wallMs / b.batches[round]!.wallMs);
  return `${median(ratios).toFixed(2)} (rounds: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')})`;
}

function sidesOf(stack: BenchStack, label = ''): [Side, Side] {
  return [
    { name: `agent runs${label}`, runOne: agentRun, stack, batches: [] },
    { name: `bare workflows${label}`, runOne: bareRun, stack, batches: [] },
  ];
}

/**
 * Agent runs against bare workflows at each size of `throughputSizes()`, `rounds` interleaved
 * batches each; with BENCH_THROUGHPUT_JOURNAL=1, then the dev server's SQLite pragmas against
 * other ones (`measureJournalModes`).
 */
export async function measureThroughput(stack: BenchStack, folder: string, rounds: number): Promise<void> {
  const warmUp = sidesOf(stack);
  await interleave(warmUp, 20, 1);
  console.log(
    `Throughput (N runs started at once; agent: ${THROUGHPUT_STEPS} model steps + ${THROUGHPUT_STEPS - 1} no-op tools; bare: ${ACTIVITIES} no-op activities; median of ${rounds} interleaved batches):`,
  );
  for (const size of throughputSizes()) {
    const [agent, bare] = sidesOf(stack);
    // With BENCH_BASELINE_BUNDLE, a third side: the same runs on a worker of the older workflow code.
    const older: Side[] = stack.baselineCodeAgents
      ? [{ name: 'agent runs, BENCH_BASELINE_BUNDLE code', runOne: baselineCodeAgentRun, stack, batches: [] }]
      : [];
    // With BENCH_THROUGHPUT_LIKE_AGENT, a side with the agent's events and bytes but none of its code.
    const likeAgent = likeAgentSides(stack);
    await interleave([agent, bare, ...older, ...likeAgent], size, rounds);
    console.log(`  N = ${size}:`);
    for (const side of [agent, bare, ...older, ...likeAgent]) console.log(`    ${describeSide(side, size)}`);
    console.log(`    ratio agent / bare time: ${roundRatio(agent, bare)}`);
    if (likeAgent[0])
      console.log(`    ratio ${likeAgent[0].name} / bare time: ${roundRatio(likeAgent[0], bare)}; agent / that: ${roundRatio(agent, likeAgent[0])}`);
    if (likeAgent[1]) console.log(`    ratio one patch marker / three: ${roundRatio(likeAgent[1], likeAgent[0]!)}`);
    if (older[0])
      console.log(`    ratio agent / baseline-code agent time: ${roundRatio(agent, older[0])}; older code / bare: ${roundRatio(older[0], bare)}`);
  }
  if (process.env.BENCH_THROUGHPUT_JOURNAL === '1') await measureJournalModes(stack, folder, rounds);
}

/** The dev server's SQLite pragmas, compared with `DEFAULT_SQLITE_PRAGMAS` (WAL + synchronous=NORMAL). */
const JOURNAL_VARIANTS: Array<{ label: string; pragmas: Record<string, string> }> = [
  { label: 'WAL + synchronous=FULL', pragmas: { journal_mode: 'wal', synchronous: 'full' } },
  // The dev server as shipped before: rollback journal, synchronous=FULL.
  { label: 'SQLite defaults', pragmas: {} },
];

/**
 * The dev server's SQLite pragmas (WAL, synchronous=NORMAL) against WAL with synchronous=FULL and
 * SQLite's defaults: a stack per variant in this process, bare workflows and agent runs on each,
 * N = BENCH_JOURNAL_RUNS (default 100), interleaved.
 */
export async function measureJournalModes(stack: BenchStack, folder: string, rounds: number): Promise<void> {
  const size = Number(process.env.BENCH_JOURNAL_RUNS ?? 100);
  const variants: BenchStack[] = [];
  try {
    for (const [index, variant] of JOURNAL_VARIANTS.entries()) {
      variants.push(
        await startBenchStack(folder, `journal-${index}`, { eagerActivities: true, scripts: throughputScripts(), sqlitePragmas: variant.pragmas }),
      );
    }
    const sides = [
      sidesOf(stack, ', WAL + synchronous=NORMAL'),
      ...variants.map((variant, index) => sidesOf(variant, `, ${JOURNAL_VARIANTS[index]!.label}`)),
    ];
    await interleave(sides.flat(), 20, 1);
    for (const side of sides.flat()) side.batches = [];
    const bare = sides.map(([, bareSide]) => bareSide);
    const agent = sides.map(([agentSide]) => agentSide);
    await interleave([...bare, ...agent], size, rounds);
    console.log(`SQLite journal of the dev server (N = ${size} runs at once, median of ${rounds} interleaved batches):`);
    for (const side of [...bare, ...agent]) console.log(`  ${describeSide(side, size)}`);
    for (const [index, variant] of JOURNAL_VARIANTS.entries()) {
      console.log(
        `  ratio WAL + synchronous=NORMAL / ${variant.label} time: bare ${roundRatio(bare[0]!, bare[index + 1]!)}, agent ${roundRatio(agent[0]!, agent[index + 1]!)}`,
      );
    }
  } finally {
    for (const variant of variants) await variant.close();
  }
}
