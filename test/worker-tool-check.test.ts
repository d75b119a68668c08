import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError, type WorkflowClientInterceptor } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client';
import { WireName } from '../src/protocol/wire-names';
import { runCli } from './support/cli-process';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';
import { waitForPollers } from './support/task-queue-pollers';

/**
 * A config naming a tool no worker has is refused when the run starts, where the workers can be
 * asked (the `agentWorkerTools` workflow), and not found only when the model calls the tool. The
 * probes are counted on the real client the test starts runs with.
 */
let env: TestEnvironment;
let probes = 0;

const countProbes: WorkflowClientInterceptor = {
  async start(input, next) {
    if (input.workflowType === WireName.workerToolsWorkflow) probes++;
    return next(input);
  },
};

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    scripts: { helper: { replies: [{ text: 'Done.' }] } },
    clientInterceptors: [countProbes],
  });
  // Until its worker has polled, a task queue has no workers to ask (and runs start unchecked).
  await waitForPollers(env.client, env.taskQueue);
});

afterAll(async () => {
  await env?.close();
});

describe('the tools of the workers, checked when a run starts', () => {
  it('refuses a config naming a tool no worker has, saying how to register it, and starts nothing', async () => {
    const workflowId = `ghostly-${randomUUID().slice(0, 8)}`;
    const refused = env.agents.startRun({ config: { name: 'ghostly', model: 'scripted:helper', tools: ['echo', 'ghost'] }, task: 'Hi', workflowId });
    await expect(refused).rejects.toMatchObject({
      code: 'AgentConfigError',
      problems: [`tools: agent 'ghostly' names tool 'ghost', which the workers on task queue '${env.taskQueue}' do not have`],
      message: expect.stringContaining('Register ghost on the workers (AgentPlugin({ tools: [...] })'),
    });
    await expect(env.client.workflow.getHandle(workflowId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it("checks the handoff agents' tools too, and asks the workers once a minute, not once a run", async () => {
    const before = probes;
    const config = { name: 'router', model: 'scripted:helper', tools: ['echo'], handoffs: ['clerk'] };
    await expect(env.agents.startRun({ config, task: 'Hi', agents: { clerk: { name: 'clerk', tools: ['stamp'] } } })).rejects.toMatchObject({
      problems: [`tools: agent 'clerk' names tool 'stamp', which the workers on task queue '${env.taskQueue}' do not have`],
    });
    const runs = [];
    for (let index = 0; index < 3; index++)
      runs.push(await env.agents.startRun({ config: { name: 'helper', model: 'scripted:helper', tools: ['echo', 'add'] }, task: 'Hi' }));
    for (const run of runs) expect((await run.result()).output).toBe('Done.');
    // The first test's answer is still fresh: no start of this test asked again.
    expect(probes).toBe(before);
  });

  it('asks once for runs started together, not once a run', async () => {
    // A client of its own, so no answer is cached yet.
    const fresh = new AgentClient(env.client, { taskQueue: env.taskQueue });
    const before = probes;
    const runs = await Promise.all(
      Array.from({ length: 20 }, () => fresh.startRun({ config: { name: 'helper', model: 'scripted:helper', tools: ['echo'] }, task: 'Hi' })),
    );
    for (const run of runs) expect((await run.result()).output).toBe('Done.');
    expect(probes - before).toBe(1);
  });

  it('can be skipped: per run, per client, and with run --no-tool-check', async () => {
    const config = { name: 'ghostly', model: 'scripted:helper', tools: ['echo', 'ghost'] };
    const run = await env.agents.startRun({ config, task: 'Hi', checkWorkerTools: false });
    expect((await run.result()).output).toBe('Done.');
    const unchecked = new AgentClient(env.client, { taskQueue: env.taskQueue, checkWorkerTools: false });
    expect((await (await unchecked.startRun({ config, task: 'Hi' })).result()).output).toBe('Done.');
  });

  it('never holds a run back when no worker polls the task queue: it starts and waits for one durably', async () => {
    const idle = new AgentClient(env.client, { taskQueue: `no-workers-${randomUUID()}` });
    const before = probes;
    const run = await idle.startRun({ config: { name: 'ghostly', model: 'scripted:helper', tools: ['ghost'] }, task: 'Hi' });
    try {
      expect((await run.workflow.describe()).status.name).toBe('RUNNING');
      expect(probes).toBe(before);
    } finally {
      await run.workflow.terminate('test done');
    }
  });

  it('refuses such a config in the CLI with exit 2, and starts it with --no-tool-check', async () => {
    // The demo agent's config names weather tools the test worker does not have.
    const refused = await runCli(['run', '--config', 'examples/weather-agent.yaml', '--task', 'Hi', '--task-queue', env.taskQueue, '--json']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("names tool 'get_weather', which the workers on task queue");
    const started = await runCli([
      'run',
      '--config',
      'examples/weather-agent.yaml',
      '--task',
      'Hi',
      '--task-queue',
      env.taskQueue,
      '--json',
      '--no-tool-check',
    ]);
    expect(started.code).toBe(0);
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    await env.client.workflow.getHandle(workflowId).terminate('test done');
  });
});
