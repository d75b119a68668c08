// Ends what a test run left running when jest ends without its global teardown (Ctrl-C, a crash): the global setup starts it detached and it waits for its stdin to close.
import { processesOfTestRun, signalProcesses } from './test-run-processes';

/**
 * Test processes run in process groups of their own, which the terminal's Ctrl-C does not reach.
 * This process outlives jest (it is detached) and holds a pipe from it: the pipe closes when jest
 * exits, however it exits, and then every process still carrying the run's id is stopped.
 * Usage: node --import tsx test/support/test-run-watchdog.ts <run id>
 */
const runId = process.argv[2];
if (!runId) throw new Error('usage: test-run-watchdog.ts <run id>');

process.stdin.resume();
process.stdin.once('close', () => void stopLeftovers(runId));

async function stopLeftovers(id: string): Promise<void> {
  signalProcesses(processesOfTestRun(id), 'SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  signalProcesses(processesOfTestRun(id), 'SIGKILL');
  process.exit(0);
}
