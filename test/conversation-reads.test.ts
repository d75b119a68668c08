import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { z } from 'zod';
import { QueryConversationSource } from '../src/activities/conversation-source';
import { conversationQuery } from '../src/protocol/run-messages';
import { WireName } from '../src/protocol/wire-names';
import { ConversationThreads, MAX_RECENT_CHARACTERS, MAX_SYSTEM_CHARACTERS } from '../src/workflows/loop/conversation-threads';
import { defineTool } from '../src/tools/define-tool';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

/**
 * A model step needs the whole conversation but its input carries only a reference, so the
 * history stays O(1) per step. The worker that ran a run's previous step already holds all but
 * the messages added since, and those come in the step's input when they are small: then the step
 * asks the run nothing. Otherwise (large additions, another worker, a changed conversation) the
 * `conversation` query fills in what is missing. The system prompt travels in the first reference
 * of each revision when it is not long. The queries are counted on the real client the
 * worker's activities use.
 */

const STEPS = 5;
const queriesByWorkflow = new Map<string, number>();

const countConversationQueries: WorkflowClientInterceptor = {
  async query(input, next) {
    if (input.queryType === WireName.conversationQuery) {
      queriesByWorkflow.set(input.workflowExecution.workflowId, (queriesByWorkflow.get(input.workflowExecution.workflowId) ?? 0) + 1);
    }
    return next(input);
  },
};

const small = defineTool({
  name: 'small',
  description: 'A short result.',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `result ${n}`,
});
const large = defineTool({
  name: 'large',
  description: 'A result too long to travel in the next step input.',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `${n}:`.padEnd(MAX_RECENT_CHARACTERS + 100, 'x'),
});

function script(tool: string) {
  return {
    replies: [
      ...Array.from({ length: STEPS - 1 }, (_, index) => ({ text: `step ${index + 1}`, toolCalls: [{ name: tool, args: { n: index + 1 } }] })),
      { text: 'Done.' },
    ],
  };
}

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: [small, large],
    scripts: { small: script('small'), large: script('large') },
    clientInterceptors: [countConversationQueries],
  });
});

afterAll(async () => {
  await env?.close();
});

async function runWith(tool: 'small' | 'large') {
  const run = await env.agents.startRun({
    config: { name: tool, instructions: `You are ${tool}.`, model: `scripted:${tool}`, tools: [tool], max_steps: STEPS },
    task: 'Go',
  });
  const result = await run.result();
  expect(result.steps).toBe(STEPS);
  const calls = env.modelCalls.filter((call) => call.modelId === tool);
  return { run, lastRequest: calls[calls.length - 1]!.request, queries: queriesByWorkflow.get(run.workflowId) ?? 0 };
}

/** What the model must see at the last step: the task, then each step's reply and its tool result. */
function expectWholeConversation(messages: Array<{ role: string; content: string }>, tool: string): void {
  expect(messages).toHaveLength(1 + (STEPS - 1) * 2);
  expect(messages[0]).toMatchObject({ role: 'user', content: 'Go' });
  for (let step = 1; step < STEPS; step++) {
    expect(messages[step * 2 - 1]).toMatchObject({ role: 'assistant', content: `step ${step}` });
    expect(messages[step * 2]).toMatchObject({ role: 'tool', toolName: tool });
    expect(messages[step * 2]!.content.startsWith(tool === 'small' ? `result ${step}` : `${step}:`)).toBe(true);
  }
}

describe('how model steps read the conversation', () => {
  it('asks the run nothing when every step adds little (the first step brings the system prompt)', async () => {
    const { lastRequest, queries } = await runWith('small');
    expectWholeConversation(lastRequest.messages, 'small');
    expect(lastRequest.system).toContain('You are small');
    expect(queries).toBe(0);
  });

  it('reads by query what a step added when it is too large to travel in the next input, with the same result', async () => {
    const { lastRequest, queries } = await runWith('large');
    expectWholeConversation(lastRequest.messages, 'large');
    // Steps 2..5 follow a large tool result.
    expect(queries).toBe(STEPS - 1);
  });

  it('on a worker that holds nothing of the run, or a stale copy, reads it all by query', async () => {
    const { run } = await runWith('small');
    const handle = env.client.workflow.getHandle(run.workflowId);
    const count = 1 + (STEPS - 1) * 2;
    const { revision, messages: all } = await handle.query(conversationQuery, { epoch: 0, from: 0, count });
    const source = new QueryConversationSource(env.client);
    const execution = { workflowId: run.workflowId, runId: (await handle.describe()).runId };
    const before = queriesByWorkflow.get(run.workflowId) ?? 0;
    const queriesSince = () => (queriesByWorkflow.get(run.workflowId) ?? 0) - before;

    // Nothing cached: `recent` alone is not the conversation (and a system prompt alone is not either).
    const first = await source.load(execution, { epoch: 0, count, revision: revision!, system: 'system', recent: all.slice(-2) });
    expect(first.messages).toEqual(all);
    expect(queriesSince()).toBe(1);

    // Cached now: the same reference again (a retried step) asks nothing.
    expect((await source.load(execution, { epoch: 0, count, revision: revision! })).messages).toEqual(all);
    expect(queriesSince()).toBe(1);

    // Another revision (a new system prompt or a rewritten message): the copy is stale.
    expect((await source.load(execution, { epoch: 0, count, revision: revision! + 1 })).messages).toEqual(all);
    expect(queriesSince()).toBe(2);

    // A reference from before revisions existed always asks.
    expect((await source.load(execution, { epoch: 0, count })).messages).toEqual(all);
    expect(queriesSince()).toBe(3);
  });
});

describe('the conversation query as people and other tools send it', () => {
  it('answers no argument (the Web UI) with the whole current conversation, and refuses a malformed one naming the field', async () => {
    const { run } = await runWith('small');
    const handle = env.client.workflow.getHandle(run.workflowId);
    const whole = await handle.query(conversationQuery);
    expect(whole).toMatchObject({ epoch: 0, from: 0, system: expect.stringContaining('You are small') });
    expectWholeConversation(whole.messages.slice(0, 1 + (STEPS - 1) * 2), 'small');
    const last = whole.messages.length - 1;
    expect(await handle.query(conversationQuery, { from: last })).toMatchObject({ from: last, messages: [whole.messages[last]] });
    await expect(handle.query(WireName.conversationQuery, { epoch: 'latest' })).rejects.toThrow(
      'epoch: must be a whole number of at least 0, not "latest"',
    );
    await expect(handle.query(WireName.conversationQuery, 'executor')).rejects.toThrow('a conversation request must be an object');
  });
});

describe('the references a run hands its model steps', () => {
  const user = (content: string) => ({ role: 'user' as const, content });

  it('carry the messages added since the previous reference while they are small, and a revision that changes with the system prompt', () => {
    const threads = new ConversationThreads('system', [user('task')]);
    expect(threads.ref('executor')).toEqual({ epoch: 0, count: 1, revision: 0, system: 'system', recent: [user('task')] });
    threads.push('executor', user('more'));
    threads.push('executor', user('and more'));
    expect(threads.ref('executor')).toEqual({ epoch: 0, count: 3, revision: 0, recent: [user('more'), user('and more')] });
    expect(threads.ref('executor')).toEqual({ epoch: 0, count: 3, revision: 0, recent: [] });
    threads.setSystem('executor', 'new skills');
    threads.push('executor', user('x'.repeat(MAX_RECENT_CHARACTERS)));
    expect(threads.ref('executor')).toEqual({ epoch: 0, count: 4, revision: 1, system: 'new skills' });
    threads.setSystem('executor', 'y'.repeat(MAX_SYSTEM_CHARACTERS + 1));
    expect(threads.ref('executor')).toEqual({ epoch: 0, count: 4, revision: 2, recent: [] });
  });

  it('never resend what a continued run took over from its snapshot', () => {
    const threads = new ConversationThreads('system', [user('newer')], {
      base: { artifactId: 'snapshot', count: 40 },
      head: [user('task')],
      lastAssistantText: '',
    });
    expect(threads.ref('executor')).toEqual({ epoch: 0, count: 41, revision: 0, system: 'system' });
    threads.push('executor', user('newest'));
    expect(threads.ref('executor')).toEqual({ epoch: 0, count: 42, revision: 0, recent: [user('newest')] });
  });
});
