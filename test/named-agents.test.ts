import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../src/agents/define-agent';
import { ErrorCode } from '../src/protocol/errors';
import { WireName } from '../src/protocol/wire-names';
import type { agentWorkerAgents } from '../src/workflows/run/agent-worker-agents';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Named, versioned agents on the workers (issue #42, first slice): a worker offers the agents
 * defined in code and in a folder, refuses to start on one it could not run, and says which it
 * offers to `AgentClient.listAgents` and `durable-agents agents list`.
 */

const testTools = createTestTools();
let folder: string;
let env: TestEnvironment;
const support = defineAgent({ config: { name: 'support', model: 'scripted:any', tools: ['echo'], handoffs: ['billing'] }, label: 'r1' });

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'named-agents-'));
  writeFileSync(path.join(folder, 'billing.yaml'), 'name: billing\nmodel: scripted:any\ntools: [echo]\noverridable: [model]\n');
  env = await createTestEnvironment({ tools: testTools.tools, agents: [support], agentsFolder: folder });
});

afterAll(async () => {
  await env?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('a worker with named agents', () => {
  it('says which agents it offers, to the client and to `agents list`', async () => {
    const offers = await env.agents.listAgents();
    expect(offers).toEqual([
      {
        name: 'billing',
        version: expect.stringMatching(/^[0-9a-f]{12}$/),
        label: null,
        model: 'scripted:any',
        tools: ['echo'],
        handoffs: [],
        overridable: ['model'],
      },
      { name: 'support', version: support.version, label: 'r1', model: 'scripted:any', tools: ['echo'], handoffs: ['billing'], overridable: [] },
    ]);
    const listed = await runCli(['agents', 'list', '--json', '--task-queue', env.taskQueue]);
    expect({ code: listed.code, offers: JSON.parse(listed.stdout) }).toEqual({ code: 0, offers });
    const table = await runCli(['agents', 'list', '--task-queue', env.taskQueue]);
    expect(table.stdout).toContain(`support@${support.version} (r1)  scripted:any  tools echo; hands off to billing`);
  });

  it('answers the probe with a one-activity workflow (recorded for replay)', async () => {
    const workflowId = `worker-agents-${Date.now()}`;
    const offers = await env.client.workflow.execute<typeof agentWorkerAgents>(WireName.workerAgentsWorkflow, {
      taskQueue: env.taskQueue,
      workflowId,
    });
    expect(offers.map((offer) => offer.name)).toEqual(['billing', 'support']);
    await recordHistory('worker-agents', env.agents.getRun(workflowId));
  });

  it('refuses to start on an agent it could not run, naming the agent and the field, before it polls', async () => {
    const lacking = defineAgent({ config: { name: 'ops', model: 'scripted:any', tools: ['deploy_service'] } });
    const refused = await createTestEnvironment({ tools: testTools.tools, agents: [lacking] }).then(
      async (started) => {
        await started.close();
        return null;
      },
      (error: unknown) => error as { code?: string; where?: string; problems?: string[] },
    );
    expect(refused).toMatchObject({
      code: ErrorCode.agentDefinitionInvalid,
      where: "agent 'ops'",
      problems: [expect.stringMatching(/^tools: 'deploy_service' is not a tool of this worker \(it has: .*echo/)],
    });
  });

  it('`worker --agents` refuses a folder whose definition does not validate, naming the file', async () => {
    const bad = mkdtempSync(path.join(folder, 'bad-'));
    writeFileSync(path.join(bad, 'broken.yaml'), 'name: broken\nmax_steps: 0\n');
    const worker = await runCli(['worker', '--agents', bad, '--task-queue', `refused-${path.basename(bad)}`]);
    expect(worker.code).not.toBe(0);
    expect(worker.stderr).toContain(`Invalid agent definition in ${path.join(bad, 'broken.yaml')}:`);
    expect(worker.stderr).toMatch(/max_steps: /);
  });
});
