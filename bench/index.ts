/**
 * `npm run bench`: each figure is a ratio against a baseline measured side by side in the same run,
 * interleaved round by round (machines here are noisy; absolute times are for context only).
 * See docs/performance.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { measureApprovalLatency, measureParkedMemory } from './approval-latency';
import { noopScript, startBenchStack } from './bench-stack';
import { measureHistoryBytes, measureStepOverhead, STEPS } from './step-overhead';
import { measureRuntimeContract } from './runtime-contract';
import { measureOffload, measureSubagents, subagentScripts } from './subagents';
import { measureSkills } from './skills';
import { measureStreaming, streamingScripts } from './streaming';
import { measureStartup } from './startup';
import { execSync } from 'node:child_process';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const PARKED_RUNS = Number(process.env.BENCH_PARKED_RUNS ?? 200);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  // The start-up figures are of the compiled package, as users install it.
  execSync('npm run build', { stdio: 'ignore', cwd: path.resolve(__dirname, '..') });
  const folder = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const scripts = {
    steps10: noopScript(STEPS),
    steps50: noopScript(50),
    gated: { replies: [{ toolCalls: [{ name: 'noop', args: {} }] }, { text: 'done' }] },
    'gated-step': { replies: [{ toolCalls: [{ name: 'gate', args: {} }] }, { text: 'done' }] },
    ...subagentScripts(),
    ...streamingScripts(),
  };
  const eagerOn = await startBenchStack(folder, 'eager-on', { eagerActivities: true, scripts });
  const eagerOff = await startBenchStack(folder, 'eager-off', { eagerActivities: false, scripts });
  try {
    await measureStartup(eagerOn, Math.min(ROUNDS, 5));
    await measureStepOverhead(eagerOn, eagerOff, ROUNDS);
    await measureHistoryBytes(eagerOn);
    await measureApprovalLatency(eagerOn, ROUNDS);
    await measureRuntimeContract(eagerOn, ROUNDS);
    await measureSubagents(eagerOn, ROUNDS);
    await measureOffload(eagerOn);
    await measureStreaming(eagerOn, Math.min(ROUNDS, 5));
    await measureSkills(eagerOn, folder);
    await measureParkedMemory(eagerOn, folder, PARKED_RUNS);
    await measureParkedMemory(eagerOn, folder, PARKED_RUNS, 10);
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
