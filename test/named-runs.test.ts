import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { defineAgent } from '../src/agents/define-agent';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import { AgentNotFoundError, AgentOverrideError } from '../src/protocol/agent-errors';
import { ErrorCode } from '../src/protocol/errors';
import type { AgentRunInput } from '../src/protocol/run-types';
import { AgentNameAttribute, AgentVersionAttribute } from '../src/protocol/search-attributes';
import { WireName } from '../src/protocol/wire-names';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Runs started by an agent's name (issue #42, item 2): the workers resolve the definition when the
 * run starts, record it in the history (a local activity's marker), show it in `AgentVersion`, the
 * status and the history; overrides only where the definition allows them; an unknown name, version
 * or override refused before anything starts, and a run whose workers lost the agent failing typed.
 */

let env: TestEnvironment;
const support = defineAgent({
  config: { name: 'support', model: 'scripted:support', instructions: 'You help with orders.', tools: ['echo'], handoffs: ['billing'] },
  label: 'r1',
});
const triage = defineAgent({ config: { name: 'triage', model: 'scripted:handingOver', tools: ['echo'], handoffs: ['billing'] } });
const billing = defineAgent({
  config: { name: 'billing', model: 'scripted:billing', instructions: 'You handle billing.', tools: ['add'] },
  overridable: ['model', 'temperature'],
});

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    agents: [support, triage, billing],
    scripts: {
      support: {
        replies: [
          {
            toolCalls: [{ name: 'echo', args: { text: 'order 7' } }],
            expect: { systemIncludes: 'You help with orders.', toolsInclude: ['echo', 'transfer_to_billing'] },
          },
          { text: 'Order 7 is on its way ({{tool:echo}}).' },
        ],
      },
      handingOver: { replies: [{ toolCalls: [{ name: 'transfer_to_billing', args: { reason: 'a refund' } }] }] },
      billing: {
        replies: [
          { text: 'unused: step 1 is support' },
          { text: 'Refunded.', expect: { systemIncludes: 'You handle billing.', toolsInclude: ['add'] } },
        ],
      },
      billingExperiment: { replies: [{ text: 'Billing, on the experiment model.', expect: { systemIncludes: 'You handle billing.' } }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

describe('a run started by its agent name', () => {
  it('runs the definition the workers resolved, and shows its version in the status, the search attribute and the history', async () => {
    const run = await env.agents.startRun({ agent: 'support', task: 'Where is order 7?' });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'completed', output: 'Order 7 is on its way (order 7).' });
    expect((await run.status()).agentVersion).toEqual({ name: 'support', version: support.version, label: 'r1' });
    const described = await eventually(async () => {
      const description = await env.client.workflow.getHandle(run.workflowId).describe();
      return description.typedSearchAttributes.get(AgentVersionAttribute) === `support@${support.version}` && description;
    });
    expect(described.typedSearchAttributes.get(AgentNameAttribute)).toBe('support');
    const transcript = renderTranscript(await buildTranscript(env.client, run.workflowId));
    expect(transcript).toContain(`agent support@${support.version} (r1), model scripted:support`);
    await recordHistory('named-run', run);
  });

  it('takes the version by hash or label, and lets callers override only what the definition allows', async () => {
    const byLabel = await env.agents.startRun({ agent: 'support@r1', task: 'Where is order 7?' });
    expect((await byLabel.result()).output).toBe('Order 7 is on its way (order 7).');
    const experiment = await env.agents.startRun({ agent: 'billing', overrides: { model: 'scripted:billingExperiment' }, task: 'Refund me' });
    expect((await experiment.result()).output).toBe('Billing, on the experiment model.');
    const refused = await env.agents
      .startRun({ agent: { name: 'support', overrides: { model: 'scripted:billing' } }, task: 'Hi', workflowId: 'named-refused-override' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentOverrideError);
    expect(refused).toMatchObject({
      code: ErrorCode.agentOverrideRefused,
      problems: ["model: agent 'support' does not let callers override it (it allows: nothing)"],
    });
    const badValue = await env.agents.startRun({ agent: 'billing', overrides: { temperature: 7 }, task: 'Hi' }).catch((error: unknown) => error);
    expect(badValue).toMatchObject({ code: ErrorCode.agentOverrideRefused, problems: [expect.stringMatching(/^temperature: /)] });
    await expect(env.client.workflow.getHandle('named-refused-override').describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('refuses an unknown name or version before anything starts, listing what the workers offer', async () => {
    const unknown = await env.agents.startRun({ agent: 'suport', task: 'Hi', workflowId: 'named-unknown' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(AgentNotFoundError);
    expect(unknown).toMatchObject({
      code: ErrorCode.agentNotFound,
      agent: 'suport',
      offered: [`billing@${billing.version}`, `support@${support.version} (r1)`, `triage@${triage.version}`],
    });
    const version = await env.agents.startRun({ agent: 'support@0123456789ab', task: 'Hi' }).catch((error: unknown) => error);
    expect(version).toMatchObject({ code: ErrorCode.agentNotFound, agent: 'support@0123456789ab' });
    const both = await env.agents.startRun({ agent: 'support', config: { name: 'x' }, task: 'Hi' }).catch((error: unknown) => error);
    expect(both).toMatchObject({ code: ErrorCode.agentConfigInvalid, problems: ['agent: give the agent a config or a name (agent), not both'] });
    await expect(env.client.workflow.getHandle('named-unknown').describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('hands off to the agents its definition names, resolved by the workers', async () => {
    const run = await env.agents.startRun({ agent: { name: 'triage', version: triage.version }, task: 'Refund order 7' });
    await expect(run.result()).resolves.toMatchObject({ agent: 'billing', output: 'Refunded.', stopReason: 'completed' });
  });

  it('fails a run whose workers do not define the agent with AgentNotFound (a start that skipped the check), recorded for replay', async () => {
    const workflowId = `named-lost-${Date.now()}`;
    const input: AgentRunInput = { agent: { name: 'retired' }, task: 'Hi' };
    const handle = await env.client.workflow.start(WireName.agentRunWorkflow, { taskQueue: env.taskQueue, workflowId, args: [input] });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: ErrorCode.agentNotFound, nonRetryable: true });
    expect(cause?.message).toContain(`support@${support.version} (r1)`);
    await recordHistory('named-run-not-found', env.agents.getRun(workflowId));
  });

  it('`run --agent` starts a named agent, and refuses --config with --agent before connecting', async () => {
    const run = await runCli(['run', '--agent', 'support', '--task', 'Where is order 7?', '--follow', '--json', '--task-queue', env.taskQueue]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!).result.output).toBe('Order 7 is on its way (order 7).');
    const both = await runCli(['run', '--agent', 'support', '--config', 'x.yaml', '--task', 'Hi']);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('--agent: give --config or --agent, not both');
  });
});
