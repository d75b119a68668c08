import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunHandle, StartRunOptions } from '../src/client/agent-client';
import type { Message } from '../src/protocol/messages';
import type { RunEvent } from '../src/protocol/run-events';
import type { AgentRunResult } from '../src/protocol/run-types';
import { DEFAULT_PLANNER_PROMPT } from '../src/workflows/rules/run-prompts';
import { recordHistory } from './support/history-recorder';
import { runCli } from './support/cli-process';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;

const scripts = {
  planned: {
    planner: [{ toolCalls: [{ name: 'echo', args: { text: 'look around' } }] }, { text: 'Plan:\n1. Add the numbers\n2. Answer briefly' }],
    replies: [{ toolCalls: [{ name: 'add', args: { a: 2, b: 2 } }] }, { text: 'It is {{tool:add}}.' }],
  },
  plannerModel: { replies: [{ text: 'unused' }], planner: [{ text: '1. Only step' }] },
  advised: { replies: [{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }, { text: 'done' }] },
  compactsThenFinishes: {
    replies: [
      { toolCalls: [{ name: 'bulk', args: { words: 150 } }] },
      { toolCalls: [{ name: 'bulk', args: { words: 150 } }] },
      { toolCalls: [{ name: 'bulk', args: { words: 150 } }] },
      { text: 'finished after compaction' },
    ],
    compaction: [{ text: 'Earlier: bulk returned 150 words.' }],
  },
  tooBigFromTheStart: { replies: [{ toolCalls: [{ name: 'bulk', args: { words: 400 } }] }, { text: 'never said' }] },
  compactsThenStops: {
    replies: [
      { toolCalls: [{ name: 'bulk', args: { words: 10 } }] },
      { toolCalls: [{ name: 'bulk', args: { words: 10 } }] },
      { toolCalls: [{ name: 'bulk', args: { words: 400 } }] },
      { text: 'never said' },
    ],
    compaction: [{ text: 'Earlier: two short bulk results.' }],
  },
  injected: { replies: [{ toolCalls: [{ name: 'gate', args: {} }] }, { text: 'heard you' }] },
  progress: { replies: [{ toolCalls: [{ name: 'progressive', args: {} }] }, { text: '{{tool:progressive}}' }] },
  injectedArgs: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'hi', ui_request_id: 'req-1', run_origin: 'test' } }] }, { text: 'ok' }] },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  await env?.close();
});

async function complete(historyName: string, options: StartRunOptions): Promise<{ run: RunHandle; result: AgentRunResult; events: RunEvent[] }> {
  const run = await env.agents.startRun(options);
  const result = await run.result();
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  await recordHistory(historyName, run);
  return { run, result, events };
}

function callsFor(workflowCalls: number) {
  return env.modelCalls.slice(workflowCalls);
}

const ADVISORY = /\[context budget: \d+ tokens used of \d+ \([\d.]+%\), \d+ left\]$/;

describe('planner phase', () => {
  it('plans first with its own transcript, model and instructions; only the plan joins the executor context', async () => {
    const before = env.modelCalls.length;
    const { result, events, run } = await complete('planner', {
      config: {
        name: 'planner',
        model: 'scripted:planned',
        planning_enabled: true,
        planning_model: 'scripted:planned',
        planning_instructions: 'Return a short numbered plan.',
        tools: ['echo', 'add'],
      },
      task: 'What is 2 + 2?',
    });
    const calls = callsFor(before);
    const plannerCalls = calls.filter((call) => call.request.purpose === 'planner');
    const executorCalls = calls.filter((call) => call.request.purpose === 'executor');
    expect(plannerCalls).toHaveLength(2);
    expect(plannerCalls[0]?.request.system).toBe('Return a short numbered plan.');
    expect(plannerCalls[0]?.request.tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    // The planner's tool call and result stay in the planner's transcript.
    expect(plannerCalls[1]?.request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    const firstExecutorMessages = executorCalls[0]?.request.messages ?? [];
    expect(firstExecutorMessages).toEqual([
      { role: 'user', content: 'What is 2 + 2?\n\nPlan from the planning phase:\nPlan:\n1. Add the numbers\n2. Answer briefly' },
    ]);
    expect(
      executorCalls.flatMap((call) => call.request.messages).some((message: Message) => message.role === 'tool' && message.toolName === 'echo'),
    ).toBe(false);
    expect(result.plan).toEqual({
      text: 'Plan:\n1. Add the numbers\n2. Answer briefly',
      steps: ['Add the numbers', 'Answer briefly'],
      model: 'scripted:planned',
      plannerSteps: 2,
    });
    expect(result.toolResults.map((toolResult) => toolResult.toolName)).toEqual(['add']);
    expect(result.output).toBe('It is 4.');
    expect(events.find((event) => event.type === 'plan-created')).toMatchObject({ plan: { steps: ['Add the numbers', 'Answer briefly'] } });
    expect((await run.status()).plan?.steps).toEqual(['Add the numbers', 'Answer briefly']);
  });

  it('uses planning_model for the planner only and the built-in prompt when planning_instructions is empty', async () => {
    const before = env.modelCalls.length;
    const { result } = await complete('planner-model', {
      config: { name: 'planner', model: 'scripted:advised', planning_enabled: true, planning_model: 'scripted:plannerModel', tools: ['add'] },
      task: 'Add',
    });
    const calls = callsFor(before);
    expect(calls.filter((call) => call.request.purpose === 'planner').map((call) => [call.modelId, call.request.system])).toEqual([
      ['plannerModel', DEFAULT_PLANNER_PROMPT],
    ]);
    expect(new Set(calls.filter((call) => call.request.purpose === 'executor').map((call) => call.modelId))).toEqual(new Set(['advised']));
    expect(Object.keys(result.usage.byModel).sort()).toEqual(['scripted:advised', 'scripted:plannerModel']);
  });
});

describe('budget awareness', () => {
  it('per-message: appends an advisory to every assistant message and tool result the model sees', async () => {
    const before = env.modelCalls.length;
    const { events, run } = await complete('budget-per-message', {
      config: { name: 'budget', model: 'scripted:advised', budget_awareness: 'per-message', context_window: 8000, tools: ['add'] },
      task: 'Add',
    });
    // The call after the tool ran (a first call retried on a loaded machine is seen twice, and has the task alone).
    const second = callsFor(before)
      .filter((call) => call.request.messages.length > 1)
      .at(-1)!.request.messages;
    expect(second[0]).toEqual({ role: 'user', content: 'Add' });
    expect(second[1]?.content).toMatch(ADVISORY);
    expect(second[2]?.content).toMatch(/^2\n\n\[context budget: /);
    expect(events.filter((event) => event.type === 'budget-advisory')).toHaveLength(2);
    expect((await run.status()).budget).toMatchObject({ contextWindow: 8000 });
  });

  it('null: no advisory, no budget events', async () => {
    const before = env.modelCalls.length;
    const { events } = await complete('budget-off', { config: { name: 'budget', model: 'scripted:advised', tools: ['add'] }, task: 'Add' });
    // The call after the tool ran (a first call retried on a loaded machine is seen twice, and has the task alone).
    const second = callsFor(before)
      .filter((call) => call.request.messages.length > 1)
      .at(-1)!.request.messages;
    expect(second.map((message) => message.content)).toEqual(['Add', '', '2']);
    expect(events.some((event) => event.type.startsWith('budget'))).toBe(false);
  });

  it('limit: compacts older turns when the context passes the limit, then continues', async () => {
    const before = env.modelCalls.length;
    const { result, events } = await complete('budget-compaction', {
      config: { name: 'budget', model: 'scripted:compactsThenFinishes', budget_awareness: 'limit:25', context_window: 2000, tools: ['bulk'] },
      task: 'Read a lot',
    });
    expect(result.stopReason).toBe('completed');
    expect(result.output).toBe('finished after compaction');
    const calls = callsFor(before);
    expect(calls.map((call) => call.request.purpose)).toEqual(['executor', 'executor', 'executor', 'compaction', 'executor']);
    const afterCompaction = calls[4]!.request.messages;
    expect(afterCompaction[0]).toEqual({ role: 'user', content: 'Read a lot' });
    expect(afterCompaction[1]).toEqual({
      role: 'user',
      content: 'Summary of the earlier part of this conversation:\nEarlier: bulk returned 150 words.',
    });
    expect(afterCompaction.slice(2).map((message) => message.role)).toEqual(['assistant', 'tool', 'assistant', 'tool']);
    expect(events.find((event) => event.type === 'context-compacted')).toMatchObject({ step: 4, removedMessages: 2 });
  });

  it('limit: stops with budget_limit and no further model call when compaction cannot help', async () => {
    const before = env.modelCalls.length;
    const { result, events } = await complete('budget-stop', {
      config: { name: 'budget', model: 'scripted:tooBigFromTheStart', budget_awareness: 'limit:10', context_window: 2000, tools: ['bulk'] },
      task: 'Read a lot',
    });
    expect(result.stopReason).toBe('budget_limit');
    // Nothing was old enough to compact: the detail says so (not "even after compaction").
    expect(result.stopDetail).toMatch(
      /^The prompt needs \d+ tokens, above the budget of 200 \(limit:10 of a 2000-token window\), and nothing could be compacted \(only the task and the latest turns are left, which compaction keeps\); no further model call was made\.$/,
    );
    expect(callsFor(before)).toHaveLength(1);
    expect(events.filter((event) => event.type === 'budget-stopped')).toHaveLength(1);
  });

  it('limit: compacts, and stops when the prompt is still above the limit', async () => {
    const before = env.modelCalls.length;
    const { result, events } = await complete('budget-compaction-stop', {
      config: { name: 'budget', model: 'scripted:compactsThenStops', budget_awareness: 'limit:30', context_window: 1000, tools: ['bulk'] },
      task: 'Read',
    });
    expect(result.stopReason).toBe('budget_limit');
    expect(callsFor(before).map((call) => call.request.purpose)).toEqual(['executor', 'executor', 'executor', 'compaction']);
    expect(events.map((event) => event.type).filter((type) => type === 'context-compacted' || type === 'budget-stopped')).toEqual([
      'context-compacted',
      'budget-stopped',
    ]);
    expect(result.stopDetail).toContain('even after compaction');
  });
});

describe('injected tool args', () => {
  it('shows injected fields in the schemas, passes only executable args to the tool, and records the injected ones', async () => {
    const before = env.modelCalls.length;
    const executionsBefore = testTools.executions.length;
    const { result } = await complete('injected-args', {
      config: {
        name: 'injected',
        model: 'scripted:injectedArgs',
        tools: ['echo'],
        injected_tool_args: { ui_request_id: 'Correlation id', run_origin: 'Caller surface' },
      },
      task: 'Echo',
    });
    const schema = callsFor(before)[0]!.request.tools[0]!.parameters as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['text', 'ui_request_id', 'run_origin']);
    expect(schema.required).toEqual(['text']);
    expect(testTools.executions.slice(executionsBefore)).toEqual([{ tool: 'echo', args: { text: 'hi' } }]);
    expect(result.toolResults[0]?.metadata.injected_args).toEqual({ ui_request_id: 'req-1', run_origin: 'test' });
  });
});

describe('live message injection', () => {
  it('drains injected messages in FIFO order after the tool results, before the next model call', async () => {
    testTools.gateControl.reset();
    const before = env.modelCalls.length;
    const run = await env.agents.startRun({ config: { name: 'listener', model: 'scripted:injected', tools: ['gate'] }, task: 'Wait' });
    await testTools.gateControl.reached();
    await run.inject('first note');
    const viaCli = await runCli(['inject', run.workflowId, 'second note']);
    expect(viaCli.stdout).toContain('Queued for');
    expect(await run.injectAndConfirm('third note')).toEqual({ queued: 3 });
    expect((await run.status()).queuedMessages).toBe(3);
    testTools.gateControl.open();
    await run.result();
    // The call after the tool ran (a first call retried on a loaded machine is seen twice, and has the task alone).
    const second = callsFor(before)
      .filter((call) => call.request.messages.length > 1)
      .at(-1)!.request.messages;
    expect(second.map((message) => `${message.role}:${message.content}`)).toEqual([
      'user:Wait',
      'assistant:',
      'tool:gate passed',
      'user:first note',
      'user:second note',
      'user:third note',
    ]);
    const events: RunEvent[] = [];
    for await (const event of run.events()) events.push(event);
    expect(
      events.filter((event) => event.type === 'message-injected').map((event) => event.type === 'message-injected' && [event.step, event.text]),
    ).toEqual([
      [2, 'first note'],
      [2, 'second note'],
      [2, 'third note'],
    ]);
    await recordHistory('message-injection', run);
  });

  it('refuses an empty message to the caller: the client before signalling, and the update validator', async () => {
    testTools.gateControl.reset();
    const run = await env.agents.startRun({ config: { name: 'listener', model: 'scripted:injected', tools: ['gate'] }, task: 'Wait' });
    await testTools.gateControl.reached();
    await expect(run.inject('   ')).rejects.toMatchObject({ code: 'EmptyMessage', message: 'text: an injected message must not be empty' });
    await expect(run.injectAndConfirm('')).rejects.toMatchObject({ code: 'EmptyMessage' });
    const viaCli = await runCli(['inject', run.workflowId, ' ']);
    expect(viaCli.code).toBe(2);
    expect(viaCli.stderr).toContain('text: an injected message must not be empty');
    testTools.gateControl.open();
    await run.result();
    expect((await run.status()).queuedMessages).toBe(0);
  });
});

describe('MCP progress toggle', () => {
  it('emits progress events when on and suppresses only them when off', async () => {
    const on = await complete('progress-on', { config: { name: 'progress', model: 'scripted:progress', tools: ['progressive'] }, task: 'Go' });
    const off = await complete('progress-off', {
      config: { name: 'progress', model: 'scripted:progress', tools: ['progressive'], emit_mcp_progress: false },
      task: 'Go',
    });
    const progressOf = (events: RunEvent[]) =>
      events.filter((event) => event.type === 'mcp-progress').map((event) => event.type === 'mcp-progress' && event.progress);
    expect(progressOf(on.events)).toEqual([
      { progress: 1, total: 3, message: 'part 1' },
      { progress: 2, total: 3, message: 'part 2' },
      { progress: 3, total: 3, message: 'part 3' },
    ]);
    expect(progressOf(off.events)).toEqual([]);
    expect(off.result.output).toBe(on.result.output);
    expect(off.result.toolResults.map((toolResult) => toolResult.content)).toEqual(on.result.toolResults.map((toolResult) => toolResult.content));
  });
});
