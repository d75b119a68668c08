// The guard around a jest run: it marks every process the run starts, fails the run when one outlives it, and ends them if jest dies first.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describeProcesses, processesOfTestRun, signalProcesses, TEST_RUN_VARIABLE, type ProcessEntry } from './test-run-processes';

/**
 * For the global setup, before anything starts: gives the run an id that every process it starts
 * inherits, and starts the watchdog that stops those processes if jest ends without its global
 * teardown (Ctrl-C, a crash; test/support/test-run-watchdog.ts).
 */
export function startTestRunGuard(): void {
  // A run of both jest projects calls this from each one's global setup, in one process: one guard.
  const started = globalThis as { agentTestRunGuard?: boolean };
  if (started.agentTestRunGuard) return;
  started.agentTestRunGuard = true;
  const runId = randomUUID();
  const { [TEST_RUN_VARIABLE]: _outerRun, ...withoutMarker } = process.env;
  const watchdog = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'test-run-watchdog.ts'), runId], {
    cwd: path.resolve(__dirname, '..', '..'),
    env: withoutMarker,
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Neither the watchdog nor its pipe keeps jest running; the pipe closes when jest exits.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref(): void }).unref();
  process.env[TEST_RUN_VARIABLE] = runId;
}

/**
 * For the global teardown, after it stopped what the setup started: waits up to `graceMs` for the
 * run's processes to exit, kills those still alive, and then throws, so the run fails.
 * @throws Error listing each process left behind (pid, group, command line).
 */
export async function assertNoLeftoverProcesses(graceMs = 10_000): Promise<void> {
  const runId = process.env[TEST_RUN_VARIABLE];
  if (!runId) return;
  const leftovers = await leftoverProcesses(runId, graceMs);
  if (leftovers.length === 0) return;
  signalProcesses(leftovers, 'SIGKILL');
  throw new Error(
    `The tests left ${leftovers.length} process(es) running (now killed). Every test must stop what it starts ` +
      `(test/support/process-group.ts stops a child with everything it started):\n${describeProcesses(leftovers)}`,
  );
}

async function leftoverProcesses(runId: string, graceMs: number): Promise<ProcessEntry[]> {
  const except = new Set([process.pid]);
  const deadline = Date.now() + graceMs;
  for (;;) {
    const alive = processesOfTestRun(runId, except);
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
