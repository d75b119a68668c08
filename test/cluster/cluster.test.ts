import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { AgentClient, type RunHandle } from '../../src/client/agent-client';
import { AGENT_SEARCH_ATTRIBUTES, AgentNameAttribute, AgentStatusAttribute } from '../../src/protocol/search-attributes';
import { runCli } from '../support/cli-process';
import { eventually } from '../support/test-env';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';
import { executionsOf, problems, settle, startRuns, unfinishedCalls, type RunPlan } from './agent-runs';
import { Cluster, NAMESPACE, RETENTION_HOURS } from './cluster';

/**
 * The runtime on a real Temporal cluster: the Temporal server 1.32.2 (built with the Temporal CLI
 * build's dependency versions, see server-binaries.ts; the compose image `go install`s it with its
 * own go.mod: both are real builds of 1.32.2) on PostgreSQL with SQL visibility and the project's
 * dynamic config, set up as docs/deployment.md says, and two worker processes. Concurrent runs, an
 * approval found through visibility, a worker SIGKILLed mid-run, and the server stopped (SIGTERM,
 * then SIGKILL) mid-run: no run is lost.
 */
let folder: string;
let logFile: string;
const cluster = new Cluster();
let connection: Connection | undefined;
let agents: AgentClient;
const workers: WorkerProcess[] = [];

/** Three model steps, five tool calls: the shape of the runs timed on both servers. */
const CONCURRENT: RunPlan = {
  name: 'cluster-concurrent',
  steps: [
    [
      { label: 'a', ms: 200 },
      { label: 'b', ms: 400 },
    ],
    [{ label: 'c', ms: 300 }],
    [
      { label: 'd', ms: 100 },
      { label: 'e', ms: 200 },
    ],
  ],
};
const CONCURRENT_RUNS = 20;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'cluster-runs-'));
  logFile = path.join(folder, 'executions.log');
  const started = Date.now();
  await cluster.start(folder);
  console.log(`cluster up in ${((Date.now() - started) / 1_000).toFixed(1)} s: ${JSON.stringify(cluster.timings)} (seconds per step)`);
  connection = await Connection.connect({ address: cluster.address });
  agents = new AgentClient(new Client({ connection, namespace: NAMESPACE }), { taskQueue: `cluster-${randomUUID()}`, namespace: NAMESPACE });
  // One at a time, each recorded at once: afterAll stops whatever started, even after a failure.
  for (let index = 0; index < 2; index++) workers.push(await startClusterWorker());
}, 1_200_000);

afterAll(async () => {
  for (const worker of workers.splice(0)) await worker.kill('SIGKILL');
  await connection?.close();
  await cluster.stop();
  rmSync(folder, { recursive: true, force: true });
}, 120_000);

function startClusterWorker(): Promise<WorkerProcess> {
  return startWorkerProcess(agents.taskQueue, { ...cluster.environment, CRASH_LOG: logFile });
}

/** How many of an agent's runs visibility (SQL, on PostgreSQL) finds completed. */
function completedCount(name: string): Promise<number> {
  return agents.temporal.workflow.count(`${AgentNameAttribute.name} = '${name}' AND ExecutionStatus = 'Completed'`).then((result) => result.count);
}

/** Whether visibility finds the run with this AgentStatus (1) or not (0). */
function statusCount(workflowId: string, status: string): Promise<number> {
  return agents.temporal.workflow.count(`${AgentStatusAttribute.name} = '${status}' AND WorkflowId = '${workflowId}'`).then((result) => result.count);
}

async function expectNoneLost(runs: RunHandle[], plan: RunPlan, timeoutMs: number): Promise<void> {
  expect(problems(await settle(runs, timeoutMs), plan)).toEqual([]);
  expect(unfinishedCalls(executionsOf(logFile, runs))).toEqual([]);
  await eventually(async () => (await completedCount(plan.name)) === runs.length, 30_000);
}

/** Wall time of `count` concurrent runs, from the first start to the last result. */
async function timeRuns(client: AgentClient, plan: RunPlan, count: number): Promise<{ ms: number; runs: RunHandle[] }> {
  const started = Date.now();
  const runs = await startRuns(client, folder, plan, count);
  expect(problems(await settle(runs, 180_000), plan)).toEqual([]);
  return { ms: Date.now() - started, runs };
}

describe('the runtime on a Temporal cluster (server 1.32.2, PostgreSQL, two workers)', () => {
  it('has the namespace with its stated retention and the search attributes the setup step registered', async () => {
    const described = await connection!.workflowService.describeNamespace({ namespace: NAMESPACE });
    expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(RETENTION_HOURS * 3_600);
    const { customAttributes } = await connection!.operatorService.listSearchAttributes({ namespace: NAMESPACE });
    expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(AGENT_SEARCH_ATTRIBUTES.map((attribute) => attribute.name)));
  });

  it('runs 20 concurrent runs over both workers; prints their wall time against the dev server', async () => {
    const first = await timeRuns(agents, CONCURRENT, CONCURRENT_RUNS);
    const executions = executionsOf(logFile, first.runs);
    expect(executions.filter((execution) => execution.phase === 'done')).toHaveLength(CONCURRENT_RUNS * 5);
    expect(new Set(executions.map((execution) => execution.pid))).toEqual(new Set(workers.map((worker) => worker.child.pid)));
    await eventually(async () => (await completedCount(CONCURRENT.name)) === CONCURRENT_RUNS, 30_000);

    // The same runs on the dev server of this jest run (the global setup's), also with two worker
    // processes; two rounds each, alternating, against the noise of a shared machine.
    const devConnection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    const devAgents = new AgentClient(new Client({ connection: devConnection }), { taskQueue: `cluster-dev-${randomUUID()}` });
    const devEnvironment = {
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
      CRASH_LOG: logFile,
    };
    const devWorkers: WorkerProcess[] = [];
    try {
      for (let index = 0; index < 2; index++) devWorkers.push(await startWorkerProcess(devAgents.taskQueue, devEnvironment));
      const devPlan = { ...CONCURRENT, name: 'dev-concurrent' };
      const clusterMs = [first.ms];
      const devMs = [(await timeRuns(devAgents, devPlan, CONCURRENT_RUNS)).ms];
      clusterMs.push((await timeRuns(agents, CONCURRENT, CONCURRENT_RUNS)).ms);
      devMs.push((await timeRuns(devAgents, devPlan, CONCURRENT_RUNS)).ms);
      const seconds = (values: number[]) => values.map((ms) => (ms / 1_000).toFixed(1)).join(' s, ');
      const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
      console.log(
        `${CONCURRENT_RUNS} concurrent runs (3 model steps, 5 tool calls each), two worker processes, two rounds: cluster ${seconds(clusterMs)} s; ` +
          `dev server ${seconds(devMs)} s; ratio cluster/dev server ${(total(clusterMs) / total(devMs)).toFixed(2)} (printed, not asserted)`,
      );
    } finally {
      for (const worker of devWorkers) await worker.kill('SIGKILL');
      await devConnection.close();
    }
  }, 600_000);

  it('finds a run waiting for approval through SQL visibility (the approvals command) and applies the approval', async () => {
    const plan: RunPlan = { name: 'cluster-approval', steps: [[{ label: 'deploy', ms: 100 }]], gated: true };
    const [run] = await startRuns(agents, folder, plan, 1);
    const pending = await eventually(async () => {
      const listed = await runCli(['approvals', '--json'], cluster.environment);
      const runs = JSON.parse(listed.stdout) as Array<{ workflowId: string; approvals: Array<{ approvalId: string; toolName: string }> }>;
      return runs.find((entry) => entry.workflowId === run!.workflowId && entry.approvals.length > 0);
    }, 60_000);
    expect(pending.approvals.map((approval) => [approval.approvalId, approval.toolName])).toEqual([['step-1.call-1', 'chaos_gated']]);
    expect(await statusCount(run!.workflowId, 'awaiting_approval')).toBe(1);

    const approved = await runCli(['approve', run!.workflowId, 'step-1.call-1', '--by', 'operator', '--json'], cluster.environment);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ approvalId: 'step-1.call-1' });
    await expectNoneLost([run!], plan, 60_000);
    expect((await run!.result()).toolResults[0]?.metadata).toMatchObject({ approval_status: 'approved' });
    await eventually(async () => (await statusCount(run!.workflowId, 'completed')) === 1, 30_000);
  }, 180_000);

  it('finishes the runs of a worker SIGKILLed mid-run on the other worker', async () => {
    const plan: RunPlan = {
      name: 'cluster-worker-killed',
      steps: [
        [
          { label: 'long-a', ms: 3_000 },
          { label: 'long-b', ms: 3_000 },
        ],
        [{ label: 'short', ms: 200 }],
      ],
    };
    const runs = await startRuns(agents, folder, plan, 6);
    const [victim, survivor] = workers as [WorkerProcess, WorkerProcess];
    await eventually(
      () => executionsOf(logFile, runs).some((execution) => execution.pid === victim.child.pid && execution.phase === 'start'),
      60_000,
    );
    await victim.kill('SIGKILL');

    await expectNoneLost(runs, plan, 180_000);
    const executions = executionsOf(logFile, runs);
    const interrupted = unfinishedOn(executions, victim.child.pid!);
    expect(interrupted.length).toBeGreaterThan(0);
    // Every call the victim did not finish was done again, by the survivor.
    for (const key of interrupted) {
      expect(
        executions.some((execution) => execution.idempotencyKey === key && execution.phase === 'done' && execution.pid === survivor.child.pid),
      ).toBe(true);
    }
    workers.splice(workers.indexOf(victim), 1, await startClusterWorker());
  }, 300_000);

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`finishes every run after the server is stopped with ${signal} mid-run and started again on the same database`, async () => {
      const plan: RunPlan = {
        name: `cluster-server-${signal.toLowerCase()}`,
        steps: [
          [
            { label: 'x', ms: 1_500 },
            { label: 'y', ms: 500 },
          ],
          [{ label: 'z', ms: 1_000 }],
        ],
      };
      const runs = await startRuns(agents, folder, plan, 8);
      await eventually(() => executionsOf(logFile, runs).some((execution) => execution.phase === 'done'), 60_000);
      const stopped = Date.now();
      await cluster.server!.stop(signal);
      const stopMs = Date.now() - stopped;
      // As compose starts it: the schema step again (a no-op on an up-to-date database), then the server.
      await cluster.applySchemas();
      await cluster.server!.start();
      console.log(
        `server ${signal}: stopped in ${(stopMs / 1_000).toFixed(1)} s, serving again ${((Date.now() - stopped) / 1_000).toFixed(1)} s after the signal`,
      );

      await expectNoneLost(runs, plan, 240_000);
      expect(workers.every((worker) => worker.child.exitCode === null)).toBe(true);
    }, 420_000);
  }
});

/** Calls that started on the worker `pid` and never completed there. */
function unfinishedOn(executions: ReturnType<typeof executionsOf>, pid: number): string[] {
  const mine = executions.filter((execution) => execution.pid === pid);
  const done = new Set(mine.filter((execution) => execution.phase === 'done').map((execution) => execution.idempotencyKey));
  return [
    ...new Set(
      mine.filter((execution) => execution.phase === 'start' && !done.has(execution.idempotencyKey)).map((execution) => execution.idempotencyKey),
    ),
  ];
}
