// Bench section `workflow-promises`: how many promises workflow code makes per activity, an agent run against a bare workflow, counted by replaying their histories (a count, not a time: the same on a busy machine).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { AgentPlugin } from '../src/worker/agent-plugin';
import { agentWorkflowsPath } from '../src/worker/workflow-bundle';
import type { bareSteps } from './baseline/bare-steps';
import { median, type BenchStack } from './bench-stack';
import { THROUGHPUT_STEPS } from './throughput';
import { compareReplayCpu, type ReplaySide } from './workflow-replay-cpu';

type History = Awaited<ReturnType<ReturnType<BenchStack['agents']['temporal']['workflow']['getHandle']>['fetchHistory']>>;

const QUIET_LOGGER = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };

/** Where the workflow code made each promise: its first frame in this repository's `src/`, else the first frame at all. */
interface Census {
  total: number;
  activities: number;
  bySite: Map<string, number>;
}

/**
 * Replays `history` and counts the promises made in the workflow's
 * sandbox. The Temporal SDK takes a stack trace, mapped through the bundle's source map, of every
 * such promise (for its stack trace query), so their number is what workflow code costs a worker's
 * CPU beyond the commands themselves.
 */
async function countPromises(code: string, history: History): Promise<Census> {
  const bySite = new Map<string, number>();
  let total = 0;
  let counting = false;
  const stop = v8.promiseHooks.onInit((promise: Promise<unknown>) => {
    // Promises of this realm are the replayer's; the sandbox has its own Promise.
    if (counting || promise.constructor === Promise) return;
    counting = true;
    try {
      total++;
      // The sandbox's own Error, so the SDK's hook maps its frames to the TypeScript sources.
      const SandboxError = (promise.constructor as unknown as { constructor: FunctionConstructor }).constructor(
        'return globalThis.Error',
      )() as ErrorConstructor;
      const frames = (new SandboxError().stack ?? '')
        .split('\n')
        .slice(1)
        .map((line) => line.trim())
        .filter((line) => !/workflow-promises|promise_hooks|vm-shared/.test(line));
      const frame = frames.find((line) => /\((src|\S*\/src)\/(workflows|workflow-api|telemetry)\//.test(line)) ?? frames[0] ?? '?';
      // The file and line (the names the source map gives are of the nearest symbol, often misleading).
      const site = /((?:src|node_modules)\/[^\s():]+:\d+)(?::\d+)?\)?$/.exec(frame)?.[1] ?? frame.replace(/^at /, '');
      bySite.set(site, (bySite.get(site) ?? 0) + 1);
    } finally {
      counting = false;
    }
  });
  try {
    // A replay worker runs its workflows in this thread, where the hook above sees them.
    await Worker.runReplayHistory({ workflowBundle: { code } }, history);
  } finally {
    stop();
  }
  const activities = (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes).length;
  return { total, activities, bySite };
}

/** One agent run of the throughput section and one bare workflow of as many activities, replayed and counted. */
export async function measureWorkflowPromises(stack: BenchStack): Promise<void> {
  const agentHistory = await throughputRunHistory(stack.agents);
  const bareId = `bare-${randomUUID()}`;
  await stack.agents.temporal.workflow.execute<typeof bareSteps>('bareSteps', {
    taskQueue: stack.baselineTaskQueue,
    workflowId: bareId,
    args: [THROUGHPUT_STEPS * 2 - 1],
  });
  const bareHistory = await stack.agents.temporal.workflow.getHandle(bareId).fetchHistory();

  const agentCode = (await bundleWorkflowCode({ workflowsPath: agentWorkflowsPath(), plugins: [new AgentPlugin()], logger: QUIET_LOGGER })).code;
  const bareCode = (await bundleWorkflowCode({ workflowsPath: require.resolve('./baseline'), logger: QUIET_LOGGER })).code;
  const agent = await countPromises(agentCode, agentHistory);
  const bare = await countPromises(bareCode, bareHistory);
  const perActivity = (census: Census) => census.total / Math.max(1, census.activities);
  console.log(
    `Promises made by workflow code (replayed, ${THROUGHPUT_STEPS} model steps + ${THROUGHPUT_STEPS - 1} tools against ${bare.activities} bare activities):`,
  );
  console.log(
    `  agent run ${agent.total} (${perActivity(agent).toFixed(1)} per activity), bare workflow ${bare.total} (${perActivity(bare).toFixed(1)} per activity), ratio ${(perActivity(agent) / perActivity(bare)).toFixed(2)}`,
  );
  console.log("  the agent run's, by where they are made:");
  for (const [site, count] of [...agent.bySite.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`    ${String(count).padStart(4)}  ${site}`);

  const sides: Array<ReplaySide & { name: string }> = [{ name: 'agent run', code: agentCode, history: agentHistory, activities: agent.activities }];
  // With BENCH_BASELINE_BUNDLE: the same run on the worker of the older workflow code, replayed with that code.
  if (stack.baselineCodeAgents && process.env.BENCH_BASELINE_BUNDLE) {
    const olderCode = readFileSync(process.env.BENCH_BASELINE_BUNDLE, 'utf8');
    const olderHistory = await throughputRunHistory(stack.baselineCodeAgents);
    const older = await countPromises(olderCode, olderHistory);
    console.log(`  the same run on BENCH_BASELINE_BUNDLE code: ${older.total} (${perActivity(older).toFixed(1)} per activity)`);
    sides.push({ name: 'agent run, BENCH_BASELINE_BUNDLE code', code: olderCode, history: olderHistory, activities: older.activities });
  }
  sides.push({ name: 'bare workflow', code: bareCode, history: bareHistory, activities: bare.activities });
  const copies = Number(process.env.BENCH_REPLAY_COPIES ?? 100);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const cpu = await compareReplayCpu(sides, copies, rounds);
  console.log(
    `Replay CPU per activity (${copies} histories a round, median of ${rounds} interleaved rounds; worker process, all threads; ratio to the bare workflow):`,
  );
  for (const [index, side] of sides.entries()) {
    const { perActivityMs, ratios } = cpu[index]!;
    console.log(
      `  ${side.name}: ${perActivityMs.toFixed(3)} ms` +
        (index < sides.length - 1 ? `, ratio ${median(ratios).toFixed(2)} (rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')})` : ''),
    );
  }
}

/** The history of one throughput agent run (5 model steps, 4 no-op tools) on `agents`' worker. */
async function throughputRunHistory(agents: BenchStack['agents']): Promise<History> {
  const run = await agents.startRun({
    config: { name: 'throughput', model: 'scripted:throughput', tools: ['noop'], max_steps: THROUGHPUT_STEPS },
    task: 'go',
  });
  await run.result();
  return agents.temporal.workflow.getHandle(run.workflowId).fetchHistory();
}
