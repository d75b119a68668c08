// A worker stopped with SIGTERM mid-tool (a rolling deploy): the call finishes or moves, never fails.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { stringify as stringifyYaml } from 'yaml';
import type { AgentClient } from '../src/client/agent-client';
import { runCli } from './support/cli-process';
import { chaosExecutions, type ChaosExecution } from './support/crash-tools';
import { eventually } from './support/test-env';
import type { WorkerProcess } from './support/worker-process';
import { workerProcessFixture } from './support/worker-process-fixture';

const fixture = workerProcessFixture('shutdown');

function executions(logFile: string): ChaosExecution[] {
  return existsSync(logFile) ? chaosExecutions(readFileSync(logFile, 'utf8')) : [];
}

/**
 * A run whose one tool call works `ms` (stopping when cancelled, as tools that honour `context.signal` do).
 * The heartbeat timeout is the default 10 s, not shorter: on a loaded machine a late heartbeat
 * would retry the call for a reason other than the shutdown this file tests.
 */
async function startWorkRun(agents: AgentClient, label: string, ms: number) {
  const script = path.join(fixture.folder, `${label}.yaml`);
  writeFileSync(
    script,
    stringifyYaml({ replies: [{ toolCalls: [{ name: 'chaos_work', args: { label, ms } }] }, { text: 'Done: {{tool:chaos_work}}' }] }),
  );
  return agents.startRun({
    config: { name: 'deploy', model: `scripted:${script}`, tools: ['chaos_work'] },
    task: 'Work through a deploy',
    timeouts: { heartbeatMs: 10_000 },
  });
}

function start(taskQueue: string, environment: Record<string, string>): Promise<WorkerProcess> {
  return fixture.startWorker(environment, { taskQueue });
}

describe('a worker stopped with SIGTERM while a tool runs', () => {
  it('finishes the call within its shutdown grace and exits after it; the run completes on the other worker', async () => {
    const logFile = path.join(fixture.folder, 'drain.log');
    const agents = fixture.freshAgents();
    const stopping = await start(agents.taskQueue, { CRASH_LOG: logFile, AGENT_WORKER_SHUTDOWN_GRACE: '60s' });
    const run = await startWorkRun(agents, 'drain', 10_000);
    await eventually(() => executions(logFile).some((execution) => execution.phase === 'start'), 60_000);

    const signalledAt = Date.now();
    const exited = new Promise<number>((resolve) => stopping.child.once('exit', () => resolve(Date.now())));
    stopping.child.kill('SIGTERM');
    // Started only now, so the call cannot be on it: it takes the steps after the call.
    await start(agents.taskQueue, { CRASH_LOG: logFile });
    const result = await run.result();
    const exitedAt = await exited;

    expect(result.output).toBe('Done: worked drain');
    expect(result.toolResults[0]).toMatchObject({ isError: false, metadata: { status: 'success' } });
    const log = executions(logFile);
    expect(log.map(({ phase, pid, attempt }) => ({ phase, pid, attempt }))).toEqual([
      { phase: 'start', pid: stopping.child.pid, attempt: 1 },
      { phase: 'done', pid: stopping.child.pid, attempt: 1 },
    ]);
    // It drained: it stayed up until the call was done (10 s of work), not 2-3 s.
    expect(exitedAt).toBeGreaterThanOrEqual(log[1]!.at);
    expect(exitedAt - signalledAt).toBeGreaterThan(5_000);
    expect(stopping.output()).toContain('SIGTERM: finishing in-flight tasks (1 activities) for up to 1m');
  });

  it('after its grace, hands the call to another worker, which runs it again; the result is never the cancellation', async () => {
    const logFile = path.join(fixture.folder, 'handover.log');
    const agents = fixture.freshAgents();
    const stopping = await start(agents.taskQueue, { CRASH_LOG: logFile, AGENT_WORKER_SHUTDOWN_GRACE: '1s' });
    const run = await startWorkRun(agents, 'handover', 15_000);
    await eventually(() => executions(logFile).some((execution) => execution.phase === 'start'), 60_000);

    stopping.child.kill('SIGTERM');
    const other = await start(agents.taskQueue, { CRASH_LOG: logFile });
    const result = await run.result();

    expect(result.output).toBe('Done: worked handover');
    expect(result.toolResults[0]).toMatchObject({ isError: false, metadata: { status: 'success' } });
    const log = executions(logFile);
    expect(log.map(({ phase, pid, attempt }) => ({ phase, pid, attempt }))).toEqual([
      { phase: 'start', pid: stopping.child.pid, attempt: 1 },
      { phase: 'start', pid: other.child.pid, attempt: 2 },
      { phase: 'done', pid: other.child.pid, attempt: 2 },
    ]);
    // Temporal retried it (attempt 2) after a retryable failure saying why, not a tool error.
    const history = await run.workflow.fetchHistory();
    const started = (history.events ?? []).find(
      (event) => event.activityTaskStartedEventAttributes?.attempt === 2,
    )?.activityTaskStartedEventAttributes;
    expect(started?.lastFailure?.applicationFailureInfo?.type).toBe('WorkerShutdown');
    expect(started?.lastFailure?.message).toContain("Tool 'chaos_work' was cancelled because its worker shut down");
  });
});

describe('a worker stopped with SIGTERM while a model step runs', () => {
  it("after its grace, has Temporal retry the step on another worker, using none of the run's own retries", async () => {
    const agents = fixture.freshAgents();
    const stopping = await start(agents.taskQueue, { CRASH_LOG: path.join(fixture.folder, 'model.log'), AGENT_WORKER_SHUTDOWN_GRACE: '1s' });
    const script = path.join(fixture.folder, 'slow-model.yaml');
    // The first attempt waits for the abort; the next answers at once.
    writeFileSync(script, stringifyYaml({ replies: [{ text: 'Answered', delayMs: 120_000, delayAttempts: 1 }] }));
    const run = await agents.startRun({
      config: { name: 'slow', model: `scripted:${script}`, max_retries: 1 },
      task: 'Answer slowly',
      timeouts: { heartbeatMs: 10_000 },
    });
    await eventually(
      async () =>
        ((await run.workflow.describe()).raw.pendingActivities ?? []).some(
          (activity) => activity.activityType?.name === 'modelStep' && Number(activity.state) === 2,
        ),
      60_000,
    );

    stopping.child.kill('SIGTERM');
    await start(agents.taskQueue, { CRASH_LOG: path.join(fixture.folder, 'model.log') });
    const result = await run.result();

    expect(result.output).toBe('Answered');
    const events = (await run.workflow.fetchHistory()).events ?? [];
    // One activity (no workflow-level try), its second attempt after the shutdown's failure.
    expect(events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'modelStep')).toHaveLength(1);
    const started = events.find((event) => event.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes;
    expect(started?.attempt).toBe(2);
    expect(started?.lastFailure?.applicationFailureInfo?.type).toBe('WorkerShutdown');
  });
});

describe('worker --shutdown-grace', () => {
  it('refuses a value that is not a duration before connecting (exit 2), naming the flag or the variable', async () => {
    const flag = await runCli(['worker', '--shutdown-grace', 'ten minutes'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--shutdown-grace: 'ten minutes' is not a duration such as 30s or 10m");
    const variable = await runCli(['worker'], { TEMPORAL_ADDRESS: '127.0.0.1:1', AGENT_WORKER_SHUTDOWN_GRACE: '600' });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain("AGENT_WORKER_SHUTDOWN_GRACE: '600' is not a duration");
  });
});
