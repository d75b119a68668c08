import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { AgentClient } from '../src/client/agent-client';
import { formatDuration } from '../src/config/duration';
import { DEFAULT_TIMEOUTS } from '../src/protocol/run-types';
import { chaosExecutions, type ChaosExecution } from '../test/support/crash-tools';
import { startWorkerProcess, type WorkerProcess } from '../test/support/worker-process';
import { median, type BenchStack } from './bench-stack';

async function waitForExecution(logFile: string, matches: (execution: ChaosExecution) => boolean, timeoutMs: number): Promise<ChaosExecution> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = existsSync(logFile) ? chaosExecutions(readFileSync(logFile, 'utf8')).find(matches) : undefined;
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no matching execution in ${logFile} within ${timeoutMs} ms`);
}

/**
 * Recovery after a SIGKILL: a tool runs on worker A; a replacement worker B polls; A is killed;
 * the time until the interrupted tool starts again on B (Temporal notices the missing heartbeats
 * after the heartbeat timeout, then retries after its 1 s initial interval). B is the next
 * round's A.
 */
async function measureRecoveryWith(stack: BenchStack, folder: string, heartbeatMs: number | undefined, rounds: number): Promise<number[]> {
  const taskQueue = `recovery-${randomUUID()}`;
  const logFile = path.join(folder, `recovery-${taskQueue}.log`);
  const environment = { TEMPORAL_ADDRESS: stack.server.address, CRASH_LOG: logFile };
  const script = path.join(folder, 'recovery-model.yaml');
  writeFileSync(
    script,
    stringifyYaml({ replies: [{ toolCalls: [{ name: 'chaos_work', args: { label: 'long', ms: 600_000 } }] }, { text: 'done' }] }),
  );
  const agents = new AgentClient(stack.agents.temporal, { taskQueue });
  const recoveries: number[] = [];
  let current: WorkerProcess = await startWorkerProcess(taskQueue, environment);
  try {
    for (let round = 0; round < rounds; round++) {
      const run = await agents.startRun({
        config: { name: 'recovery', model: `scripted:${script}`, tools: ['chaos_work'] },
        task: 'work',
        ...(heartbeatMs !== undefined ? { timeouts: { heartbeatMs } } : {}),
      });
      const first = await waitForExecution(
        logFile,
        (execution) => execution.phase === 'start' && execution.idempotencyKey.startsWith(`${run.workflowId}/`),
        60_000,
      );
      const replacement = await startWorkerProcess(taskQueue, environment);
      // Let the tool heartbeat for a while on A, as it would in the middle of real work.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const killedAt = Date.now();
      await current.kill('SIGKILL');
      current = replacement;
      const again = await waitForExecution(
        logFile,
        (execution) => execution.idempotencyKey === first.idempotencyKey && execution.attempt > first.attempt,
        120_000,
      );
      recoveries.push(again.at - killedAt);
      await run.workflow.terminate('bench round finished');
    }
  } finally {
    await current.kill('SIGKILL');
  }
  return recoveries;
}

/** Kill → the interrupted tool running again on a replacement worker, with the default and a short heartbeat timeout. */
export async function measureRecovery(stack: BenchStack, folder: string, rounds: number): Promise<void> {
  console.log(`Recovery after SIGKILL of the worker running a tool (kill → the tool running again on another worker; median of ${rounds} rounds):`);
  for (const heartbeatMs of [undefined, 2_000]) {
    const recoveries = await measureRecoveryWith(stack, folder, heartbeatMs, rounds);
    const label = heartbeatMs === undefined ? `${formatDuration(DEFAULT_TIMEOUTS.heartbeatMs)} (default)` : formatDuration(heartbeatMs);
    const seconds = (value: number) => `${(value / 1_000).toFixed(1)} s`;
    console.log(`  heartbeat timeout ${label}: ${seconds(median(recoveries))} (rounds: ${recoveries.map(seconds).join(', ')})`);
  }
}
