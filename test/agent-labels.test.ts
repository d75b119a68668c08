import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NativeConnection } from '@temporalio/worker';
import { defineAgent, type AgentDefinition } from '../src/agents/define-agent';
import { RECORDED_AGENTS_KEY } from '../src/agents/deployment-labels';
import { WorkerDeployments } from '../src/client/worker-deployments';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { ErrorCode } from '../src/protocol/errors';
import { createAgentWorker } from '../src/worker/create-worker';
import { readDeploymentRecords } from '../src/worker/deployment-agent-record';
import { runCli } from './support/cli-process';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * One label, one definition across a Worker Deployment (issue #42 item 6): a versioned worker
 * records its agents on its build, and a worker whose agents would make a label mean two
 * definitions refuses to start, naming the agent, the label, both versions and the other build,
 * while what already runs carries on.
 */

const LONG = 90_000;
const testTools = createTestTools();
const deploymentName = `labels-${randomUUID().slice(0, 8)}`;
const taskQueue = `labels-${randomUUID()}`;
const target = resolveTemporalTarget();
const supportConfig = { name: 'support', model: 'scripted:support', tools: ['echo'], hitl_tools: ['echo'] };
const support = defineAgent({ config: { ...supportConfig, instructions: 'Help with orders.' }, label: 'r1' });
const changedUnderR1 = defineAgent({ config: { ...supportConfig, instructions: 'Help with orders, politely.' }, label: 'r1' });
const changedAsR2 = defineAgent({ config: { ...supportConfig, instructions: 'Help with orders, politely.' }, label: 'r2' });
const scripts = { support: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'order 7 shipped' } }] }, { text: 'Done: {{tool:echo}}' }] } };

let buildOne: TestEnvironment;
let buildTwo: TestEnvironment | undefined;
let connection: NativeConnection;

beforeAll(async () => {
  connection = await NativeConnection.connect(target.connectionOptions);
  buildOne = await startBuild('1', support);
});

afterAll(async () => {
  await buildTwo?.close();
  await buildOne?.close();
  await connection?.close();
});

/** A running worker of `buildId` on the test's task queue, offering `agent`. */
function startBuild(buildId: string, agent: AgentDefinition): Promise<TestEnvironment> {
  return createTestEnvironment({ tools: testTools.tools, agents: [agent], scripts, taskQueue, deployment: { deploymentName, buildId } });
}

/** What `createAgentWorker` throws for a worker of `buildId` offering `agent` (a worker it makes is stopped, and fails the test). */
async function refusal(buildId: string, agent: AgentDefinition): Promise<{ code?: string; where?: string; problems?: string[] }> {
  const made = await createAgentWorker({
    connection,
    client: buildOne.client,
    namespace: target.namespace,
    taskQueue,
    tools: testTools.tools,
    agents: [agent],
    deployment: { deploymentName, buildId },
    telemetry: false,
  }).catch((error: unknown) => error as { code?: string; where?: string; problems?: string[] });
  if (!('getState' in made)) return made;
  // Made after all (the check is broken): stop it, so the connection closes and the test fails rather than hangs.
  const running = made.run();
  await eventually(() => made.getState() === 'RUNNING');
  made.shutdown();
  await running;
  throw new Error(`a worker of build ${buildId} offering ${agent.name}@${agent.version} was made`);
}

/** The versions of `support` each build recorded, once `buildId` has recorded one. */
async function recordedBy(buildId: string): Promise<Record<string, string | undefined>> {
  return eventually(async () => {
    const recorded = await recordedSupport();
    return recorded[buildId] !== undefined && recorded;
  }, LONG);
}

/** The versions of `support` each build recorded, by build id. */
async function recordedSupport(): Promise<Record<string, string | undefined>> {
  const records = await readDeploymentRecords(buildOne.client, { deploymentName, buildId: '1' });
  return Object.fromEntries(records.map((record) => [record.buildId, record.agents.support?.version]));
}

describe('one label, one definition across a Worker Deployment', () => {
  it('records what a build offers, refuses conflicting workers before they poll, and leaves running work alone', async () => {
    const deployments = new WorkerDeployments(buildOne.client);
    // Build 1 is the first of its deployment: it starts, polls, then records its agents on its version.
    await eventually(async () => (await deployments.describe(deploymentName).catch(() => null))?.builds.some((build) => build.buildId === '1'), LONG);
    await deployments.setCurrent(deploymentName, '1');
    expect(await recordedBy('1')).toEqual({ '1': support.version });
    const version = await buildOne.client.workflowService.describeWorkerDeploymentVersion({
      namespace: target.namespace,
      deploymentVersion: { deploymentName, buildId: '1' },
    });
    expect(Object.keys(version.workerDeploymentVersionInfo?.metadata?.entries ?? {})).toContain(RECORDED_AGENTS_KEY);

    // A run on build 1 waits on an approval while other workers try to start.
    const run = await buildOne.agents.startRun({ agent: 'support', task: 'Where is order 7?' });
    await eventually(async () => (await run.status()).pendingApprovals.length === 1, LONG);

    // A second worker of build 1 with another definition under r1: the two workers of one build disagree.
    expect(await refusal('1', changedUnderR1)).toMatchObject({
      code: ErrorCode.agentDefinitionInvalid,
      where: `Worker Deployment '${deploymentName}', build '1'`,
      problems: [
        `support: this worker offers version ${changedUnderR1.version} (label 'r1'), but another worker of the same build '1' offers version ${support.version} (label 'r1'); every worker of a build must offer the same definitions`,
      ],
    });
    // Build 2 changed support but kept the label r1.
    expect(await refusal('2', changedUnderR1)).toMatchObject({
      code: ErrorCode.agentDefinitionInvalid,
      where: `Worker Deployment '${deploymentName}', build '2'`,
      problems: [
        `support: label 'r1' is version ${changedUnderR1.version} here, but build '1' offers version ${support.version} under the same label; give the changed definition a new label`,
      ],
    });
    // Neither refused worker polled: the deployment has no build 2, and build 1's record is unchanged.
    expect((await deployments.describe(deploymentName)).builds.map((build) => build.buildId)).toEqual(['1']);
    expect(await recordedSupport()).toEqual({ '1': support.version });

    // Build 2 with the changed definition under a new label starts, and records it.
    buildTwo = await startBuild('2', changedAsR2);
    expect(await recordedBy('2')).toEqual({
      '1': support.version,
      '2': changedAsR2.version,
    });

    // The run started on build 1 finishes there, on build 1's definition.
    await run.approve('step-1.call-1', { decidedBy: 'alice' });
    expect(await run.result()).toMatchObject({ stopReason: 'completed', output: 'Done: order 7 shipped' });
    expect((await run.status()).agentVersion).toEqual({ name: 'support', version: support.version, label: 'r1' });
    const described = await buildOne.client.workflow.getHandle(run.workflowId).describe();
    expect(described.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe('1');
  }, 240_000);

  it('stops `durable-agents worker` with a changed agent under a recorded label, naming it (a process, before it polls)', async () => {
    // Build 1 recorded support under r1 (the first test waits for it when run alone too).
    await recordedBy('1');
    const folder = mkdtempSync(path.join(os.tmpdir(), 'agent-labels-'));
    try {
      writeFileSync(path.join(folder, 'support.yaml'), 'name: support\nmodel: scripted:support\nlabel: r1\n');
      const worker = await runCli(['worker', '--agents', folder, '--task-queue', taskQueue, '--deployment-name', deploymentName, '--build-id', '3']);
      expect(worker.code).not.toBe(0);
      expect(worker.stderr).toContain(`Invalid agent definition in Worker Deployment '${deploymentName}', build '3':`);
      expect(worker.stderr).toContain(`support: label 'r1' is version `);
      expect(worker.stderr).toContain(`but build '1' offers version ${support.version} under the same label`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    expect((await new WorkerDeployments(buildOne.client).describe(deploymentName)).builds.map((build) => build.buildId)).not.toContain('3');
  }, 120_000);
});
