/**
 * `npm run bench`: each figure is a ratio against a baseline measured side by side in the same run,
 * interleaved round by round (machines here are noisy; absolute times are for context only).
 * See docs/performance.md.
 */
import { measureNamedAgents, namedBenchAgents } from './named-agents';
import { gatewayScripts, measureGateway } from './gateway';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { measureApprovalLatency, measureParkedMemory } from './approval-latency';
import { noopScript, startBenchStack } from './bench-stack';
import { measureCodeAgainstBaseline, measureHistoryBytes, measureStepOverhead, STEPS } from './step-overhead';
import { measureRuntimeContract } from './runtime-contract';
import { measureHooks } from './hooks';
import { measureOffload, measureSubagents, subagentScripts } from './subagents';
import { measureSkills } from './skills';
import { measureStreaming, streamingScripts } from './streaming';
import { measureFollowRequests } from './follow-requests';
import { measureStartup } from './startup';
import { measureRecovery } from './recovery';
import { measureThroughput, throughputScripts } from './throughput';
import { measureParkedScale } from './parked-scale';
import { measureTracingOverhead } from './tracing';
import { measureThreads, threadScripts } from './threads';
import { measureReplayCost, replayCostScripts } from './replay-cost';
import { measureParkedThreads, measureParkedThreadsScale } from './parked-threads';
import { measureClusterSpeed } from './cluster-speed';
import { measureProviderLimits } from './provider-limits';
import { measureWorkflowPromises } from './workflow-promises';
import { execSync } from 'node:child_process';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
/** Comma-separated names of the sections to run (default: all), e.g. BENCH_ONLY=step-overhead,code-baseline. */
const ONLY = process.env.BENCH_ONLY?.split(',');
/** Interleaved batches per size in `throughput` (BENCH_THROUGHPUT_ROUNDS; each batch at N = 1000 takes over a minute here). */
const THROUGHPUT_ROUNDS = Number(process.env.BENCH_THROUGHPUT_ROUNDS ?? Math.min(ROUNDS, 3));
const PARKED_RUNS = Number(process.env.BENCH_PARKED_RUNS ?? 200);
const PARKED_SCALE = Number(process.env.BENCH_PARKED_SCALE ?? 10_000);
const PARKED_THREADS = Number(process.env.BENCH_PARKED_THREADS ?? 10_000);
/** Threads of `parked-threads-scale` that answer a second message (spread over all of them). */
/** Concurrent runs per batch in `cluster-speed`. */
const CLUSTER_RUNS = Number(process.env.BENCH_CLUSTER_RUNS ?? 20);
const PARKED_THREADS_SAMPLE = Number(process.env.BENCH_PARKED_THREADS_SAMPLE ?? 500);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  // The start-up figures are of the compiled package, as users install it.
  if (!ONLY || ONLY.includes('startup')) execSync('npm run build', { stdio: 'ignore', cwd: path.resolve(__dirname, '..') });
  const folder = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const scripts = {
    steps10: noopScript(STEPS),
    steps50: noopScript(50),
    gated: { replies: [{ toolCalls: [{ name: 'noop', args: {} }] }, { text: 'done' }] },
    'gated-step': { replies: [{ toolCalls: [{ name: 'gate', args: {} }] }, { text: 'done' }] },
    ...subagentScripts(),
    ...streamingScripts(),
    ...gatewayScripts(),
    ...throughputScripts(),
    ...threadScripts(),
    ...replayCostScripts(),
  };
  const eagerOn = await startBenchStack(folder, 'eager-on', {
    eagerActivities: true,
    scripts,
    baselineBundlePath: process.env.BENCH_BASELINE_BUNDLE,
    withHookedWorker: !ONLY || ONLY.includes('hooks'),
    agents: namedBenchAgents(),
  });
  const eagerOff = await startBenchStack(folder, 'eager-off', { eagerActivities: false, scripts });
  try {
    const sections: Array<[string, () => Promise<void>]> = [
      ['startup', () => measureStartup(eagerOn, Math.min(ROUNDS, 5))],
      ['step-overhead', () => measureStepOverhead(eagerOn, eagerOff, ROUNDS)],
      ['code-baseline', () => measureCodeAgainstBaseline(eagerOn, ROUNDS)],
      ['hooks', () => measureHooks(eagerOn, ROUNDS)],
      ['history-bytes', () => measureHistoryBytes(eagerOn)],
      ['approval-latency', () => measureApprovalLatency(eagerOn, ROUNDS)],
      ['runtime-contract', () => measureRuntimeContract(eagerOn, ROUNDS)],
      ['subagents', () => measureSubagents(eagerOn, ROUNDS)],
      ['offload', () => measureOffload(eagerOn)],
      ['streaming', () => measureStreaming(eagerOn, Math.min(ROUNDS, 5))],
      ['follow-requests', () => measureFollowRequests(eagerOn, Math.min(ROUNDS, 5))],
      ['skills', () => measureSkills(eagerOn, folder)],
      ['recovery', () => measureRecovery(eagerOn, folder, Math.min(ROUNDS, 3))],
      ['throughput', () => measureThroughput(eagerOn, folder, THROUGHPUT_ROUNDS)],
      ['workflow-promises', () => measureWorkflowPromises(eagerOn)],
      // Opt-in (about 20 minutes for 10,000 runs): BENCH_ONLY=parked-scale BENCH_PARKED_SCALE=10000.
      ['parked-scale', () => (ONLY?.includes('parked-scale') ? measureParkedScale(eagerOn, folder, PARKED_SCALE) : Promise.resolve())],
      ['replay-cost', () => measureReplayCost(eagerOn, Math.min(ROUNDS, 5))],
      ['tracing', () => measureTracingOverhead(eagerOn, ROUNDS)],
      ['threads', () => measureThreads(eagerOn, ROUNDS)],
      ['named-agents', () => measureNamedAgents(eagerOn, ROUNDS)],
      ['gateway', () => measureGateway(eagerOn, ROUNDS)],
      ['parked-threads', () => measureParkedThreads(eagerOn, folder, PARKED_RUNS)],
      // Opt-in (about 10 minutes for 10,000 threads): BENCH_ONLY=parked-threads-scale BENCH_PARKED_THREADS=10000.
      [
        'parked-threads-scale',
        () =>
          ONLY?.includes('parked-threads-scale')
            ? measureParkedThreadsScale(eagerOn, folder, PARKED_THREADS, PARKED_THREADS_SAMPLE)
            : Promise.resolve(),
      ],
      // Opt-in (it starts PostgreSQL and a Temporal server): BENCH_ONLY=cluster-speed BENCH_CLUSTER_RUNS=20.
      ['cluster-speed', () => (ONLY?.includes('cluster-speed') ? measureClusterSpeed(eagerOn, ROUNDS, CLUSTER_RUNS) : Promise.resolve())],
      ['provider-limits', () => measureProviderLimits(eagerOn, Number(process.env.BENCH_PROVIDER_LIMIT_RUNS ?? 300))],
      [
        'parked-memory',
        async () => {
          await measureParkedMemory(eagerOn, folder, PARKED_RUNS);
          await measureParkedMemory(eagerOn, folder, PARKED_RUNS, 10);
        },
      ],
    ];
    for (const [name, measure] of sections) if (!ONLY || ONLY.includes(name)) await measure();
  } finally {
    await eagerOn.close();
    await eagerOff.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
