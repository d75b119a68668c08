import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time';
import { AgentClient } from '../src/client/agent-client';
import { startAgentWorkflow } from '../src/client/start-agent-workflow';
import { parseAgentConfig } from '../src/config/agent-config';
import { AgentRuntimeError, ErrorCode, SearchAttributesMissingError } from '../src/protocol/errors';
import type { RunEvent } from '../src/protocol/run-events';
import { AgentForkOfAttribute, AgentNameAttribute } from '../src/protocol/search-attributes';
import { buildTranscript } from '../src/history/history-view';
import { WireName } from '../src/protocol/wire-names';
import type { agentWorkerTools } from '../src/workflows/run/agent-worker-tools';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;

/** The origin: step 1 adds, step 2 echoes, step 3 answers. */
const originScript = {
  replies: [
    { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
    { toolCalls: [{ name: 'echo', args: { text: 'hello' } }] },
    { text: 'origin answer: {{tool:add}}' },
  ],
};

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      origin: originScript,
      // Another model: the same first two steps (never asked: the fork starts at step 3), another answer.
      other: {
        replies: [
          { text: 'unused: step 1 is the origin' },
          { text: 'unused: step 2 is the origin' },
          { text: 'fork answer: {{tool:echo}}', expect: { lastMessageIncludes: 'hello' } },
        ],
      },
      // After the origin's final answer, the fork's added message is what the model answers.
      followup: {
        replies: [
          { text: 'unused' },
          { text: 'unused' },
          { text: 'unused' },
          { text: 'follow-up answered', expect: { lastMessageIncludes: 'Now in French' } },
        ],
      },
      long: {
        replies: [
          ...Array.from({ length: 7 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 100 } }] })),
          { text: 'long done {{tool:add}}' },
        ],
      },
      // Three long results: the prompt of step 4 passes the budget (limit:25 of 2000), so step 4 compacts first.
      compacts: {
        replies: [
          ...Array.from({ length: 3 }, () => ({ toolCalls: [{ name: 'bulk', args: { words: 150 } }] })),
          { text: 'finished after compaction' },
        ],
        compaction: [{ text: 'Earlier: bulk returned 150 words.' }],
      },
      afterCompaction: {
        replies: [
          ...Array.from({ length: 4 }, () => ({ text: 'unused' })),
          { text: 'fork after the compaction', expect: { lastMessageIncludes: 'And now?' } },
        ],
      },
      planned: {
        planner: [{ text: 'Plan:\n1. Add\n2. Answer' }],
        replies: [{ toolCalls: [{ name: 'add', args: { a: 5, b: 5 } }] }, { text: 'planned {{tool:add}}' }],
      },
      plannedFork: { replies: [{ text: 'unused' }, { text: 'fork of a planned run: {{tool:add}}' }] },
      triage: {
        replies: [
          { toolCalls: [{ name: 'echo', args: { text: 'routing' } }] },
          { toolCalls: [{ name: 'transfer_to_billing', args: {} }] },
          { text: 'unused' },
          { text: 'unused' },
        ],
      },
      billing: {
        replies: [
          { text: 'unused' },
          { text: 'unused' },
          { toolCalls: [{ name: 'add', args: { a: 40, b: 2 } }] },
          { text: 'Refunded {{tool:add}} euros.' },
        ],
      },
      billingFork: { replies: [{ text: 'unused' }, { text: 'unused' }, { text: 'unused' }, { text: 'Billing fork refunded {{tool:add}}.' }] },
      longFork: { replies: [...Array.from({ length: 3 }, () => ({ text: 'unused' })), { text: 'forked long run saw {{tool:add}}' }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

const executionsOf = (tool: string) => testTools.executions.filter((execution) => execution.tool === tool).length;

async function originRun(): Promise<string> {
  const run = await env.agents.startRun({ config: { name: 'origin', model: 'scripted:origin', tools: ['add', 'echo'] }, task: 'Add and echo' });
  expect((await run.result()).output).toBe('origin answer: 3');
  return run.workflowId;
}

describe('fork', () => {
  it('continues from the end of step 2 under another model: steps 1-2 are not taken again', async () => {
    const origin = await originRun();
    const before = { add: executionsOf('add'), echo: executionsOf('echo') };
    const fork = await env.agents.fork(origin, { fromStep: 2, model: 'scripted:other' });
    const result = await fork.result();
    expect(result.output).toBe('fork answer: hello');
    expect(result.stopReason).toBe('completed');
    expect(result.steps).toBe(3);
    expect({ add: executionsOf('add'), echo: executionsOf('echo') }).toEqual(before);
    // The fork's only model call is step 3, with the origin's conversation: task, 2 replies, 2 results.
    const calls = env.modelCalls.filter((call) => call.modelId === 'other');
    expect(calls.map((call) => call.request.step)).toEqual([3]);
    expect(calls[0]!.request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(result.usage.byModel['scripted:other']).toBeDefined();
    expect(result.usage.byModel['scripted:origin']).toBeUndefined();

    // Linked to its origin: search attribute, Web UI metadata, its first event, its history.
    const description = await fork.workflow.describe();
    expect(description.typedSearchAttributes.get(AgentForkOfAttribute)).toBe(origin);
    const metadata = await description.staticSummary();
    expect(metadata).toContain(`fork of ${origin} after step 2`);
    expect(await description.staticDetails()).toContain(origin);
    const events: RunEvent[] = [];
    for await (const event of fork.events()) events.push(event);
    expect(events[0]).toMatchObject({ type: 'run-forked', from: { workflowId: origin }, step: 2, model: 'scripted:other', message: null });
    const transcript = await buildTranscript(env.client, fork.workflowId);
    expect(transcript.entries[0]).toMatchObject({ kind: 'started', forkOf: { workflowId: origin, step: 2 } });
    expect(transcript.entries.filter((entry) => entry.kind === 'model').map((entry) => entry.kind === 'model' && entry.step)).toEqual([3]);
    await recordHistory('fork-from-step', fork);
  });

  it('adds a message after the last step and continues under the config of a file (CLI, --follow --json)', async () => {
    const origin = await originRun();
    const cli = await runCli([
      'fork',
      origin,
      '--from-step',
      '3',
      '--model',
      'scripted:followup',
      '--task',
      'Now in French',
      '--follow',
      '--json',
      '--task-queue',
      env.taskQueue,
    ]);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const printed = JSON.parse(cli.stdout.trim().split('\n').at(-1)!) as {
      workflowId: string;
      forkOf: string;
      result: { output: string; steps: number };
    };
    expect(printed).toMatchObject({ forkOf: origin, result: { output: 'follow-up answered', steps: 4 } });
    const call = env.modelCalls.find((candidate) => candidate.modelId === 'followup')!;
    expect(call.request.messages.at(-2)).toMatchObject({ role: 'assistant', content: 'origin answer: 3' });
  });

  it('forks a run that continued as new from a step of an earlier execution', async () => {
    const run = await env.agents.startRun({
      config: { name: 'long', model: 'scripted:long', tools: ['add'], max_steps: 8 },
      task: 'Keep adding',
      historyEventLimit: 30,
    });
    expect((await run.result()).output).toBe('long done 106');
    const executions = await env.client.workflow.count(`WorkflowId = '${run.workflowId}'`);
    expect(executions.count).toBeGreaterThan(1);
    const adds = executionsOf('add');
    const fork = await env.agents.fork(run.workflowId, { fromStep: 3, model: 'scripted:longFork' });
    const result = await fork.result();
    expect(result.output).toBe('forked long run saw 102');
    expect(executionsOf('add')).toBe(adds);
    const call = env.modelCalls.find((candidate) => candidate.modelId === 'longFork')!;
    expect(call.request.messages.filter((message) => message.role === 'tool')).toHaveLength(3);
  });

  it('refuses a step before a later compaction of the same execution, and forks from the compaction on', async () => {
    const config = { name: 'compacting', model: 'scripted:compacts', budget_awareness: 'limit:25', context_window: 2000, tools: ['bulk'] };
    const run = await env.agents.startRun({ config, task: 'Read a lot' });
    expect((await run.result()).output).toBe('finished after compaction');
    const error = await env.agents.fork(run.workflowId, { fromStep: 2 }).then(
      () => null,
      (caught: unknown) => caught as AgentRuntimeError,
    );
    expect(error?.code).toBe(ErrorCode.forkRefused);
    expect(error?.message).toContain('compacted its conversation at step 4, after step 2');
    const fork = await env.agents.fork(run.workflowId, { fromStep: 4, model: 'scripted:afterCompaction', task: 'And now?' });
    expect((await fork.result()).output).toBe('fork after the compaction');
    const call = env.modelCalls.find((candidate) => candidate.modelId === 'afterCompaction')!;
    expect(call.request.messages[1]!.content).toContain('Summary of the earlier part of this conversation');
    await recordHistory('fork-after-compaction', fork);
  });

  it('forks a planned run (the plan stays in the task message, the planner does not run again) and a handed-off run (as the agent that took the step)', async () => {
    const planned = await env.agents.startRun({
      config: { name: 'planned', model: 'scripted:planned', planning_enabled: true, tools: ['add'] },
      task: 'Add five and five',
    });
    expect((await planned.result()).output).toBe('planned 10');
    const plannerCalls = env.modelCalls.filter((call) => call.request.purpose === 'planner').length;
    const fork = await env.agents.fork(planned.workflowId, { fromStep: 1, model: 'scripted:plannedFork' });
    expect((await fork.result()).output).toBe('fork of a planned run: 10');
    expect(env.modelCalls.filter((call) => call.request.purpose === 'planner')).toHaveLength(plannerCalls);
    expect(env.modelCalls.find((call) => call.modelId === 'plannedFork')!.request.messages[0]!.content).toContain('Plan:');

    const triage = { name: 'triage', model: 'scripted:triage', tools: ['echo'], handoffs: ['billing'] };
    const billing = { name: 'billing', model: 'scripted:billing', tools: ['add'] };
    const handedOff = await env.agents.startRun({ config: triage, task: 'Refund me', agents: { billing } });
    expect((await handedOff.result()).output).toBe('Refunded 42 euros.');
    const adds = executionsOf('add');
    const billingFork = await env.agents.fork(handedOff.workflowId, { fromStep: 3, model: 'scripted:billingFork' });
    const result = await billingFork.result();
    expect(result.output).toBe('Billing fork refunded 42.');
    expect(executionsOf('add')).toBe(adds);
    expect(await billingFork.workflow.describe().then((description) => description.typedSearchAttributes.get(AgentForkOfAttribute))).toBe(
      handedOff.workflowId,
    );
    const events: RunEvent[] = [];
    for await (const event of billingFork.events()) events.push(event);
    expect(events[0]).toMatchObject({ type: 'run-forked', agent: 'billing', step: 3 });

    // A fork that hands off keeps its link to the origin.
    const echoes = executionsOf('echo');
    const triageFork = await env.agents.fork(handedOff.workflowId, { fromStep: 1 });
    expect((await triageFork.result()).output).toBe('Refunded 42 euros.');
    expect(executionsOf('echo')).toBe(echoes);
    const latest = await env.client.workflow.getHandle(triageFork.workflowId).describe();
    expect(latest.typedSearchAttributes.get(AgentForkOfAttribute)).toBe(handedOff.workflowId);
    expect(latest.typedSearchAttributes.get(AgentNameAttribute)).toBe('billing');
    await recordHistory('fork-handoff', triageFork);
  });

  it('refuses bad input before anything starts, naming it', async () => {
    const origin = await originRun();
    const forksOf = async () => (await env.client.workflow.count(`${AgentForkOfAttribute.name} = '${origin}'`)).count;
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AgentRuntimeError);
      return error as AgentRuntimeError;
    };
    const unknown = await refusal(env.agents.fork('no-such-run-42', { fromStep: 1 }));
    expect(unknown.code).toBe(ErrorCode.runNotFound);
    expect(unknown.message).toContain('no-such-run-42');
    const beyond = await refusal(env.agents.fork(origin, { fromStep: 4 }));
    expect(beyond.code).toBe(ErrorCode.forkRefused);
    expect(beyond.message).toContain('step 4 is beyond the last step');
    expect(beyond.message).toContain('(3)');
    const zero = await refusal(env.agents.fork(origin, { fromStep: 0 }));
    expect(zero.code).toBe(ErrorCode.forkRefused);
    const invalid = await refusal(env.agents.fork(origin, { fromStep: 1, config: { name: 'x', temperature: 7 } }));
    expect(invalid.code).toBe(ErrorCode.agentConfigInvalid);
    expect(invalid.message).toContain('temperature');
    const lacking = await refusal(
      env.agents.fork(origin, { fromStep: 1, config: { name: 'origin', model: 'scripted:other', tools: ['add', 'teleport'] } }),
    );
    expect(lacking.code).toBe(ErrorCode.agentConfigInvalid);
    expect(lacking.message).toContain("tool 'teleport'");
    const cli = await runCli(['fork', origin, '--from-step', '9', '--task-queue', env.taskQueue]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('step 9 is beyond the last step');
    expect(await forksOf()).toBe(0);
  });

  it('reports a namespace that lacks AgentForkOf as SearchAttributesMissingError (run `setup`), starting nothing', async () => {
    const namespace = `no-fork-attribute-${Date.now()}`;
    const { connection } = env.client;
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    // A namespace just created may not be known to the operator API for a moment.
    await eventually(async () => {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: {
          AgentName: keyword,
          AgentStatus: keyword,
          AgentCostUsd: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
        },
      });
      return true;
    }, 60_000);
    const agents = new AgentClient(new Client({ connection, namespace }), { namespace, taskQueue: env.taskQueue });
    const input = { config: parseAgentConfig({ name: 'x' }), task: 'y' };
    const error = await startAgentWorkflow(agents, input, {
      workflowId: 'fork-x',
      summary: 'x',
      attributes: [{ key: AgentForkOfAttribute, value: 'origin' }],
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SearchAttributesMissingError);
    expect((error as Error).message).toContain('AgentForkOf');
    expect((error as Error).message).toContain('durable-agents setup');
  });

  it('asks the workers which tools they have with a one-activity workflow', async () => {
    const workflowId = `worker-tools-${Date.now()}`;
    const tools = await env.client.workflow.execute<typeof agentWorkerTools>(WireName.workerToolsWorkflow, { taskQueue: env.taskQueue, workflowId });
    expect(tools).toEqual(expect.arrayContaining(['add', 'echo', 'read_artifact']));
    await recordHistory('worker-tools', env.agents.getRun(workflowId));
  });
});
