import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Worker } from '@temporalio/worker';
import type { RunHandle, StartRunOptions } from '../src/client/agent-client';
import type { InstructionsContext, InstructionsProvider } from '../src/hooks/define-hook';
import type { RunEvent } from '../src/protocol/run-events';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Dynamic instructions on a real dev server: a provider the worker registers writes the prompt at
 * the start of each run and thread turn, in an activity whose result the history records (and a
 * replay uses); a provider that is missing, empty or keeps failing leaves the static instructions,
 * whose template variables are filled from the workflow's own clock.
 */

const asked: InstructionsContext[] = [];
let flakyCalls = 0;
const providers: Record<string, InstructionsProvider> = {
  'support-prompt': (context) => {
    asked.push(context);
    return `You are ${context.agent}, helping ${context.resourceId ?? 'nobody'}${context.turn ? ` (turn ${context.turn})` : ''}. Asked: ${context.task}`;
  },
  'flaky-prompt': () => {
    if (flakyCalls++ === 0) throw new Error('the prompt store is restarting');
    return 'Recovered prompt';
  },
  'broken-prompt': () => {
    throw new Error('the prompt store is gone');
  },
  'empty-prompt': () => null,
};

const testTools = createTestTools();
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    instructionsProviders: providers,
    scripts: {
      answer: { replies: [{ text: 'Answered.' }] },
      chat: { replies: [{ text: 'One.' }, { text: 'Two.' }] },
      // Four tool steps: with a low history event limit the run continues as new on the way.
      long: {
        replies: [...Array.from({ length: 4 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 1 } }] })), { text: 'Long done.' }],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

function start(config: Partial<StartRunOptions['config']>, options: Partial<StartRunOptions> = {}): Promise<RunHandle> {
  return env.agents.startRun({
    config: { name: 'support', model: 'scripted:answer', instructions: 'Static fallback for {{agent_name}}.', ...config },
    task: 'Where is my order?',
    ...options,
  });
}

/** The system prompt of each model call of one run (by the task the test gave it). */
function systemPrompts(task: string): string[] {
  return env.modelCalls
    .filter((call) => call.request.messages.some((message) => message.role === 'user' && message.content === task))
    .map((call) => call.request.system);
}

async function instructionEvents(run: RunHandle): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) if (event.type === 'instructions-resolved') events.push(event);
  return events;
}

describe('dynamic instructions', () => {
  it('uses the prompt the provider built, recorded in the history, and replays with it', async () => {
    const task = `Where is order ${randomUUID().slice(0, 6)}?`;
    const run = await start({ instructions_provider: 'support-prompt' }, { task, resourceId: 'customer:5' });
    await run.result();
    const prompt = `You are support, helping customer:5. Asked: ${task}`;
    expect(systemPrompts(task)).toEqual([prompt]);
    expect(asked.at(-1)).toMatchObject({
      agent: 'support',
      task,
      resourceId: 'customer:5',
      fallback: 'Static fallback for support.',
      workflowId: run.workflowId,
    });
    expect(await instructionEvents(run)).toEqual([
      expect.objectContaining({ provider: 'support-prompt', source: 'provider', characters: prompt.length }),
    ]);

    const history = await run.workflow.fetchHistory();
    const completed = (history.events ?? []).map((event) => event.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data).filter(Boolean);
    expect(completed.some((data) => Buffer.from(data!).toString().includes(prompt))).toBe(true);
    // Replay reads the prompt from the history: the provider is not asked.
    const before = asked.length;
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.AGENT_WORKFLOW_BUNDLE! } }, history, run.workflowId);
    expect(asked.length).toBe(before);
    await recordHistory('instructions-provider', run);
  });

  it('asks once a run: a run that continues as new keeps the instructions it was given', async () => {
    const task = `Long task ${randomUUID().slice(0, 6)}`;
    const before = asked.length;
    const run = await start({ instructions_provider: 'support-prompt', model: 'scripted:long', tools: ['add'] }, { task, historyEventLimit: 20 });
    const result = await run.result();
    expect(result.output).toBe('Long done.');
    expect(asked.length - before).toBe(1);
    expect(new Set(systemPrompts(task))).toEqual(new Set([`You are support, helping nobody. Asked: ${task}`]));
    const description = await run.workflow.describe();
    expect(description.runId).not.toBe((run.workflow as { firstExecutionRunId?: string }).firstExecutionRunId);
    await recordHistory('instructions-provider-continued', run);
  });

  it.each([
    ['nope', "no instructions provider 'nope' on this worker (it has: support-prompt, flaky-prompt, broken-prompt, empty-prompt)"],
    ['empty-prompt', "instructions provider 'empty-prompt' gave no instructions"],
    ['broken-prompt', "instructions provider 'broken-prompt' failed: the prompt store is gone"],
  ])('falls back to the static instructions when provider %s gives nothing, and says why', async (provider, reason) => {
    const task = `Fallback ${provider} ${randomUUID().slice(0, 6)}`;
    const run = await start({ instructions_provider: provider, max_retries: 2 }, { task });
    await run.result();
    expect(systemPrompts(task)).toEqual(['Static fallback for support.']);
    const [event] = await instructionEvents(run);
    expect(event).toMatchObject({ source: 'fallback', provider });
    expect(event?.type === 'instructions-resolved' && event.reason).toContain(reason);
  });

  it('tries a provider that failed again within max_retries', async () => {
    const task = `Flaky ${randomUUID().slice(0, 6)}`;
    const run = await start({ instructions_provider: 'flaky-prompt', max_retries: 3 }, { task });
    await run.result();
    expect(systemPrompts(task)).toEqual(['Recovered prompt']);
    const scheduled = ((await run.workflow.fetchHistory()).events ?? [])
      .map((event) => event.activityTaskScheduledEventAttributes?.activityId)
      .filter(Boolean);
    expect(scheduled.slice(0, 2)).toEqual(['instructions', 'instructions.try-2']);
  });

  it('fills template variables of static instructions from the workflow clock', async () => {
    const task = `Template ${randomUUID().slice(0, 6)}`;
    const run = await start({ instructions: 'You are {{agent_name}} for {{resource_id}}. Today is {{date}}.' }, { task, resourceId: 'team:3' });
    await run.result();
    const started = (await run.workflow.describe()).startTime.toISOString().slice(0, 10);
    expect(systemPrompts(task)).toEqual([`You are support for team:3. Today is ${started}.`]);
    await recordHistory('instructions-template', run);
  });

  it('asks the provider at the start of each thread turn, with the turn and its message', async () => {
    const thread = env.agents.thread(`instructions-${randomUUID().slice(0, 8)}`, {
      config: { name: 'support', model: 'scripted:chat', instructions: 'Static.', instructions_provider: 'support-prompt' },
      resourceId: 'customer:8',
    });
    await (await thread.send('first question')).result();
    await (await thread.send('second question')).result();
    const turns = asked.filter((context) => context.threadId === thread.threadId);
    expect(turns.map((context) => [context.turn, context.task])).toEqual([
      [1, 'first question'],
      [2, 'second question'],
    ]);
    const prompts = env.modelCalls
      .filter((call) => call.modelId === 'chat' && call.request.system.includes('customer:8'))
      .map((call) => call.request.system);
    expect(prompts.slice(-2)).toEqual([
      'You are support, helping customer:8 (turn 1). Asked: first question',
      'You are support, helping customer:8 (turn 2). Asked: second question',
    ]);
    await thread.close();
    await recordHistory('instructions-thread', thread.run);
  });
});
