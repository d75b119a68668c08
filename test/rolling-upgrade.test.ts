import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { stringify as stringifyYaml } from 'yaml';
import { WorkerDeployments } from '../src/client/worker-deployments';
import { agentCapKey, concurrencySlotsWorkflowId } from '../src/protocol/concurrency-slots';
import { limiterWorkflowId, limitKey } from '../src/protocol/provider-limits';
import { bundleBuildTwo } from './support/build-two-bundle';
import { recordHistory } from './support/history-recorder';
import { eventually } from './support/test-env';
import { runCli } from './support/cli-process';
import { loggedExecutions } from './support/worker-process';
import { workerProcessFixture } from './support/worker-process-fixture';

/**
 * A rolling upgrade with real worker processes: build 1 of a Worker Deployment runs agent runs
 * (one waiting on an approval, one in a long tool call), two threads and the shared limiter and
 * slots; build 2 (one more activity per step: nondeterministic for build 1's histories) becomes
 * current. Build 1's runs finish on build 1, new work goes to build 2, the long-lived executions
 * move to build 2 by continue-as-new (an idle one through `moveLongLived`, with no message), and
 * build 1 then holds nothing and stops.
 */
const fixture = workerProcessFixture('rolling-upgrade');
const EventType = temporal.api.enums.v1.EventType;
const LONG = 240_000;

let buildTwoBundle = '';
beforeAll(async () => {
  buildTwoBundle = await bundleBuildTwo(path.join(fixture.folder, 'build-two-bundle.js'));
}, 240_000);

/** The build of the execution's latest run, as the server's versioning info says. */
async function buildOf(client: Client, workflowId: string): Promise<string | undefined> {
  const description = await client.workflow.getHandle(workflowId).describe();
  return description.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
}

/** Every execution of the id (continue-as-new chain), oldest first, with its history. */
async function histories(client: Client, workflowId: string): Promise<temporal.api.history.v1.IHistory[]> {
  const found: temporal.api.history.v1.IHistory[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    found.push(await client.workflow.getHandle(workflowId, execution.runId).fetchHistory());
  }
  return found.reverse();
}

/** The builds that completed the history's workflow tasks. */
function taskBuilds(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? [])
    .filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
    .map((event) => event.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? '(none)');
}

/** The activity types the history scheduled. */
function activities(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).flatMap((event) =>
    event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : [],
  );
}

/** Waits until the deployment knows the build (its workers polled), then makes it current. */
/** Waits until the build's workers have registered it with the deployment (their first poll does). */
async function buildRegistered(deployments: WorkerDeployments, deploymentName: string, buildId: string): Promise<void> {
  await eventually(
    async () => (await deployments.describe(deploymentName).catch(() => null))?.builds.some((build) => build.buildId === buildId),
    60_000,
  );
}

async function rollOut(deployments: WorkerDeployments, deploymentName: string, buildId: string): Promise<void> {
  await buildRegistered(deployments, deploymentName, buildId);
  await deployments.setCurrent(deploymentName, buildId);
}

describe('a rolling upgrade between two builds of a Worker Deployment', () => {
  it('finishes build 1 runs on build 1, moves threads, limiter and slots to build 2, and leaves build 1 with nothing', async () => {
    const { client, agents } = fixture;
    const deployments = new WorkerDeployments(client);
    const deploymentName = `rolling-${randomUUID().slice(0, 8)}`;
    const logFile = path.join(fixture.folder, 'executions.log');
    const release = path.join(fixture.folder, 'release');
    const script = path.join(fixture.folder, 'model.yaml');
    const model = `scripted:${script}`;
    writeFileSync(
      script,
      stringifyYaml({
        replies: [{ toolCalls: [{ name: 'record', args: { label: 'new-run' } }] }, { text: 'new run done: {{tool:record}}' }],
        variants: [
          {
            taskIncludes: 'approve me',
            replies: [{ toolCalls: [{ name: 'record', args: { label: 'approved-1' } }] }, { text: 'approved run done: {{tool:record}}' }],
          },
          {
            taskIncludes: 'wait for release',
            replies: [
              { toolCalls: [{ name: 'wait_for_release', args: { label: 'released-1', release } }] },
              { text: 'released run done: {{tool:wait_for_release}}' },
            ],
          },
          { taskIncludes: 'thread', replies: [{ text: 'turn 1: {{user}}' }, { text: 'turn 2: {{user}}' }, { text: 'turn 3: {{user}}' }] },
        ],
      }),
    );
    const runConfig = {
      name: 'upgrade-runs',
      model,
      tools: ['record', 'wait_for_release'],
      tool_policies: [
        { tool: 'record', when: { properties: { label: { const: 'approved-1' } }, required: ['label'] }, action: 'require_approval' as const },
      ],
      provider_limits: { [model]: { requests_per_minute: 6000 } },
      max_concurrent_runs: 10,
    };
    const chatConfig = { name: 'upgrade-chat', model, tools: ['record'] };
    const versioned = (buildId: string, extra: Record<string, string> = {}) => ({
      CRASH_LOG: logFile,
      AGENT_DEPLOYMENT_NAME: deploymentName,
      AGENT_BUILD_ID: buildId,
      ...extra,
    });

    // Build 1: runs, a run waiting on an approval, a run in a long tool call, two threads.
    const buildOne = await fixture.startWorker(versioned('1'));
    await rollOut(deployments, deploymentName, '1');
    const approved = await agents.startRun({ config: runConfig, task: 'approve me' });
    const released = await agents.startRun({ config: runConfig, task: 'wait for release' });
    const idle = agents.thread(`idle-${randomUUID().slice(0, 8)}`, { config: chatConfig });
    const busy = agents.thread(`busy-${randomUUID().slice(0, 8)}`, { config: chatConfig });
    expect((await (await idle.send('idle thread, first')).result()).output).toBe('turn 1: idle thread, first');
    expect((await (await busy.send('busy thread, first')).result()).output).toBe('turn 1: busy thread, first');
    const approvalId = await eventually(async () => (await approved.status()).pendingApprovals[0]?.approvalId, LONG);
    await eventually(() => loggedExecutions(logFile).includes('start released-1'), LONG);
    const limiterId = limiterWorkflowId(limitKey(agents.taskQueue, model));
    const slotsId = concurrencySlotsWorkflowId(agents.taskQueue, agentCapKey(runConfig.name));
    for (const id of [approved.workflowId, released.workflowId, idle.threadId, busy.threadId, limiterId, slotsId])
      expect(await buildOf(client, id)).toBe('1');
    const before = await eventually(async () => {
      const held = await deployments.holdings(deploymentName, '1');
      return held.awaitingApproval === 1 && held.byType.agentThread === 2 ? held : undefined;
    }, LONG);
    expect(before).toMatchObject({ retirable: false, byType: { agentRun: 2, agentThread: 2, providerLimiter: 1, concurrencySlots: 1 } });

    // Build 2 becomes current through the operator's command, which wakes the idle executions: they move with no message.
    await fixture.startWorker(versioned('2', { AGENT_WORKFLOW_BUNDLE: buildTwoBundle }));
    await buildRegistered(deployments, deploymentName, '2');
    const rollout = await runCli(['deployment', 'rollout', deploymentName, '2']);
    expect({ code: rollout.code, stderr: rollout.stderr }).toEqual({ code: 0, stderr: '' });
    expect(rollout.stdout).toContain(`Build 2 is the current build of ${deploymentName}`);
    expect(rollout.stdout).toContain('Woke 4 thread/limiter/slots execution(s)');
    for (const id of [idle.threadId, busy.threadId, limiterId, slotsId]) await eventually(async () => (await buildOf(client, id)) === '2', LONG);
    // Not recorded here (RECORD_HISTORIES=1 records): a thread and a limiter that continued as new for a version change.
    await recordHistory('thread-version-move', agents.getRun(idle.threadId));
    await recordHistory('limiter-version-move', agents.getRun(limiterId));

    // Build 1's runs finish on build 1: the approval decided after the switch, the tool released after it.
    await approved.approve(approvalId, { decidedBy: 'rolling-upgrade' });
    writeFileSync(release, 'go');
    expect((await approved.result()).output).toBe('approved run done: recorded approved-1');
    expect((await released.result()).output).toBe('released run done: released released-1');
    for (const run of [approved, released]) {
      for (const history of await histories(client, run.workflowId)) {
        expect(new Set(taskBuilds(history))).toEqual(new Set(['1']));
        expect(activities(history)).not.toContain('listWorkerTools');
      }
    }

    // New work runs build 2's code: a new run, and the next turn of a thread.
    const fresh = await agents.startRun({ config: runConfig, task: 'a new run after the switch' });
    expect((await fresh.result()).output).toBe('new run done: recorded new-run');
    expect(await buildOf(client, fresh.workflowId)).toBe('2');
    const [freshHistory] = await histories(client, fresh.workflowId);
    expect(new Set(taskBuilds(freshHistory!))).toEqual(new Set(['2']));
    expect(activities(freshHistory!)).toContain('listWorkerTools');
    expect((await (await busy.send('busy thread, second')).result()).output).toBe('turn 2: busy thread, second');
    const busyLatest = (await histories(client, busy.threadId)).at(-1)!;
    expect(new Set(taskBuilds(busyLatest))).toEqual(new Set(['2']));
    expect(activities(busyLatest)).toContain('listWorkerTools');

    // Build 1 holds nothing (the operator's command waits for it): it stops, and the idle thread answers on build 2.
    const drained = await runCli(['deployment', 'drained', deploymentName, '1', '--wait', '3m']);
    expect({ code: drained.code, stdout: drained.stdout.trim() }).toEqual({
      code: 0,
      stdout: `Build 1 of ${deploymentName} holds no open execution: stop its workers.`,
    });
    expect(await deployments.holdings(deploymentName, '1')).toMatchObject({
      total: 0,
      retirable: true,
      blockedBy: null,
      awaitingApproval: 0,
      byType: {},
    });
    const status = await runCli(['deployment', 'status', deploymentName, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      currentBuildId: '2',
      holdings: expect.arrayContaining([expect.objectContaining({ buildId: '1', total: 0 })]),
    });
    await buildOne.kill('SIGTERM');
    expect((await (await idle.send('idle thread, after build 1 stopped')).result()).output).toBe('turn 2: idle thread, after build 1 stopped');

    // No workflow task failed anywhere (no nondeterminism), and every tool ran once.
    for await (const execution of client.workflow.list({ query: `TaskQueue = '${agents.taskQueue}'` })) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      const failed = (history.events ?? []).filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
      expect({ workflowId: execution.workflowId, failed: failed.map((event) => event.workflowTaskFailedEventAttributes?.failure?.message) }).toEqual({
        workflowId: execution.workflowId,
        failed: [],
      });
    }
    const done = loggedExecutions(logFile).filter((line) => line.startsWith('done '));
    expect(done.sort()).toEqual(['done approved-1', 'done new-run', 'done released-1']);
  }, 600_000);
});
