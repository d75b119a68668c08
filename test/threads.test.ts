import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { ThreadHandle, ThreadOptions } from '../src/client/thread-handle';
import { ErrorCode } from '../src/protocol/errors';
import type { RunEvent } from '../src/protocol/run-events';
import { sendMessageUpdate } from '../src/protocol/thread-messages';
import type { ThreadResult } from '../src/protocol/thread-types';
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;

/** Replies indexed by the thread's overall step: each text reply answers (and quotes) its turn's message. */
const scripts = {
  chat: {
    replies: [
      { text: 'Answer 1: {{user}}' },
      { toolCalls: [{ name: 'echo', args: { text: 'looked up' } }] },
      { text: 'Answer 2: {{user}} / {{tool:echo}}' },
    ],
  },
  // Turn 1 waits in the gate tool (step 1), then answers (step 2); later turns answer at once.
  gated: {
    replies: [
      { toolCalls: [{ name: 'gate', args: {} }] },
      { text: 'After the gate: {{user}}' },
      { text: 'Next: {{user}}' },
      { text: 'Next: {{user}}' },
      { text: 'Next: {{user}}' },
    ],
  },
  approving: { replies: [{ toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] }, { text: 'Sum: {{tool:add}}' }] },
  many: { replies: Array.from({ length: 40 }, () => ({ text: 'Reply to {{user}}' })) },
  // With planning, each turn's planner takes a step number of its own (steps 1 and 3 here).
  planned: {
    planner: [{ text: '1. Read the message\n2. Answer it' }],
    replies: [
      { text: 'unused: the planner step' },
      { text: 'Planned answer to: {{user}}' },
      { text: 'unused: the planner step' },
      { text: 'Planned answer to: {{user}}' },
    ],
  },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  await env?.close();
});

beforeEach(() => testTools.gateControl.reset());

function threadOf(script: keyof typeof scripts, options: Partial<ThreadOptions> = {}): ThreadHandle {
  return env.agents.thread(`thread-${script}-${randomUUID().slice(0, 8)}`, {
    config: { name: 'assistant', model: `scripted:${script}`, tools: ['echo', 'gate', 'add'], hitl_tools: script === 'approving' ? ['add'] : [] },
    ...options,
  });
}

describe('threads', () => {
  it('creates the thread with its first message and answers each message in a turn that sees the turns before', async () => {
    const thread = threadOf('chat', { resourceId: 'user:7' });
    const first = await thread.send('hello');
    expect(first.receipt).toMatchObject({ turn: 1, disposition: 'started', duplicate: false });
    const one = await first.result();
    expect(one).toMatchObject({ turn: 1, output: 'Answer 1: hello', stopReason: 'completed', firstStep: 1, lastStep: 1 });

    const second = await thread.send('and then?');
    const two = await second.result();
    expect(two).toMatchObject({ turn: 2, output: 'Answer 2: and then? / looked up', firstStep: 2, lastStep: 3 });
    expect(two.toolResults.map((result) => result.toolName)).toEqual(['echo']);
    expect(two.usage.outputTokens).toBeGreaterThan(0);
    // Turn 2's model saw turn 1's message and answer.
    const turnTwoCall = env.modelCalls.filter((call) => call.modelId === 'chat').at(-1)!;
    expect(turnTwoCall.request.messages.map((message) => message.content)).toEqual(expect.arrayContaining(['hello', 'Answer 1: hello', 'and then?']));

    const status = await thread.status();
    expect(status).toMatchObject({
      phase: 'idle',
      turnsCompleted: 2,
      currentTurn: null,
      queued: [],
      settings: { policy: 'enqueue', resourceId: 'user:7' },
    });
    const listed = await eventually(async () =>
      (await env.agents.listThreads({ resourceId: 'user:7' })).find((entry) => entry.threadId === thread.threadId),
    );
    expect(listed).toMatchObject({ agent: 'assistant', status: 'idle', open: true });
    await recordHistory('thread-turns', thread.run);
    await thread.close('done');
  });

  it('makes one thread of two first messages sent at the same moment, and answers both', async () => {
    const threadId = `thread-race-${randomUUID().slice(0, 8)}`;
    const options = { config: { name: 'assistant', model: 'scripted:many', tools: [] } };
    const [a, b] = await Promise.all([
      env.agents.thread(threadId, options).send('first of two'),
      env.agents.thread(threadId, options).send('second of two'),
    ]);
    expect([a.turn, b.turn].sort()).toEqual([1, 2]);
    const outputs = await Promise.all([a.result(), b.result()]);
    expect(outputs.map((result) => result.output).sort()).toEqual(['Reply to first of two', 'Reply to second of two']);
    const executions: string[] = [];
    for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${threadId}'` })) executions.push(execution.runId);
    expect(executions).toHaveLength(1);
    await env.agents.thread(threadId).close();
  });

  it('enqueues messages sent during a turn and answers each once, in order', async () => {
    const thread = threadOf('gated');
    const first = await thread.send('one');
    await testTools.gateControl.reached();
    const second = await thread.send('two');
    const third = await thread.send('three');
    expect([second.receipt, third.receipt]).toMatchObject([
      { turn: 2, disposition: 'queued' },
      { turn: 3, disposition: 'queued' },
    ]);
    expect((await thread.status()).queued.map((message) => message.text)).toEqual(['two', 'three']);
    testTools.gateControl.open();
    const results = await Promise.all([first.result(), second.result(), third.result()]);
    expect(results.map((result) => result.output)).toEqual(['After the gate: one', 'Next: two', 'Next: three']);
    expect(results.map((result) => result.firstStep)).toEqual([1, 3, 4]);
    await recordHistory('thread-enqueue', thread.run);
    await thread.close();
  });

  it('injects a message into the running turn, which answers it', async () => {
    const thread = threadOf('gated', { policy: 'inject' });
    const first = await thread.send('one');
    await testTools.gateControl.reached();
    const injected = await thread.send('also this');
    expect(injected.receipt).toMatchObject({ turn: 1, disposition: 'injected' });
    testTools.gateControl.open();
    const result = await injected.result();
    expect(result).toMatchObject({ turn: 1, output: 'After the gate: also this' });
    expect(result.messageIds).toEqual([first.receipt.messageId, injected.receipt.messageId]);
    await recordHistory('thread-inject', thread.run);
    await thread.close();
  });

  it('interrupts the running turn at its next safe point, keeps its tool results, and answers the new message in a new turn', async () => {
    const thread = threadOf('gated');
    const first = await thread.send('one');
    await testTools.gateControl.reached();
    const urgent = await thread.send('stop, do this instead', { policy: 'interrupt' });
    expect(urgent.receipt).toMatchObject({ turn: 2, disposition: 'interrupting' });
    testTools.gateControl.open();
    const stopped = await first.result();
    expect(stopped).toMatchObject({ turn: 1, stopReason: 'interrupted', lastStep: 1 });
    expect(stopped.toolResults.map((result) => result.content)).toEqual(['gate passed']);
    // The next step (2) answers the interrupting message.
    expect(await urgent.result()).toMatchObject({ turn: 2, output: 'After the gate: stop, do this instead', firstStep: 2 });
    const events: RunEvent[] = [];
    for await (const event of first.events()) events.push(event);
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['turn-started', 'turn-interrupt-requested', 'turn-completed']));
    await recordHistory('thread-interrupt', thread.run);
    await thread.close();
  });

  it('refuses a reject-policy message while a turn runs, and records nothing', async () => {
    const thread = threadOf('gated', { policy: 'reject' });
    const first = await thread.send('one');
    await testTools.gateControl.reached();
    await expect(thread.send('not now')).rejects.toMatchObject({ code: ErrorCode.threadBusy, threadId: thread.threadId });
    expect((await thread.status()).queued).toEqual([]);
    testTools.gateControl.open();
    expect((await first.result()).output).toBe('After the gate: one');
    // Idle again: the same policy is accepted now.
    expect((await (await thread.send('now')).result()).output).toBe('Next: now');
    await thread.close();
  });

  it('answers a message sent twice with one id once, and gives the second send the first receipt', async () => {
    const thread = threadOf('many');
    const first = await thread.send('only once', { messageId: 'm-1' });
    // The same send again: the server answers the repeated update with the first receipt.
    const again = await thread.send('only once', { messageId: 'm-1' });
    expect(again.receipt).toEqual(first.receipt);
    // Another client's send of the same message (another update id): the thread itself knows the id.
    const other = await thread.run.workflow.executeUpdate(sendMessageUpdate, {
      args: [{ messageId: 'm-1', text: 'only once' }],
      updateId: 'another-client',
    });
    expect(other).toMatchObject({ turn: 1, duplicate: true });
    await first.result();
    const status = await thread.status();
    expect(status.turnsCompleted).toBe(1);
    await thread.close();
  });

  it('runs approvals inside a turn, from the turn handle', async () => {
    const thread = threadOf('approving');
    const turn = await thread.send('add two and three');
    for await (const event of turn.events()) {
      if (event.type === 'approval-requested') await turn.approve(event.request.approvalId, { decidedBy: 'alice' });
    }
    expect(await turn.result()).toMatchObject({ output: 'Sum: 5', stopReason: 'completed' });
    await thread.close();
  });

  it('gives each bad message a typed refusal and changes nothing', async () => {
    const thread = threadOf('many');
    await (await thread.send('hi')).result();
    await expect(thread.send('   ')).rejects.toMatchObject({ code: ErrorCode.emptyMessage });
    await expect(thread.run.workflow.executeUpdate(sendMessageUpdate, { args: [{ messageId: 'x', text: 42 } as never] })).rejects.toBeInstanceOf(
      WorkflowUpdateFailedError,
    );
    const otherConfig = env.agents.thread(thread.threadId, { config: { name: 'someone-else', model: 'scripted:many' } });
    await expect(otherConfig.send('hello')).rejects.toMatchObject({ code: ErrorCode.threadConfigMismatch });
    await expect(env.agents.thread(`no-such-thread-${randomUUID()}`).send('hello')).rejects.toMatchObject({ code: ErrorCode.threadNotFound });
    expect(() => env.agents.thread('x', { policy: 'sometimes' as never })).toThrow(/policy: must be one of enqueue, inject, interrupt, reject/);
    expect((await thread.status()).turnsCompleted).toBe(1);

    await thread.close('customer left');
    const closed = (await thread.run.workflow.result()) as ThreadResult;
    expect(closed).toMatchObject({ turnsCompleted: 1, closedReason: 'customer left', lastTurn: { output: 'Reply to hi' } });
    await expect(thread.send('are you there?')).rejects.toMatchObject({ code: ErrorCode.threadClosed });
    await expect(env.agents.thread(thread.threadId).send('are you there?')).rejects.toMatchObject({ code: ErrorCode.threadClosed });
  });

  it('plans each turn when the agent has planning enabled', async () => {
    const thread = env.agents.thread(`thread-planned-${randomUUID().slice(0, 8)}`, {
      config: { name: 'planner-agent', model: 'scripted:planned', planning_enabled: true },
    });
    const first = await (await thread.send('first question')).result();
    expect(first).toMatchObject({ firstStep: 1, lastStep: 2, output: expect.stringContaining('Planned answer to: first question') });
    const second = await (await thread.send('second question')).result();
    expect(second).toMatchObject({ firstStep: 3, lastStep: 4, output: expect.stringContaining('Planned answer to: second question') });
    expect(second.output).toContain('Plan from the planning phase');
    await recordHistory('thread-planned', thread.run);
    await thread.close();
  });

  it('takes a message sent as a signal with the Temporal CLI, and ignores (and records) a malformed one', async () => {
    const thread = threadOf('many');
    await (await thread.send('first')).result();
    const target = resolveTemporalTarget();
    const temporal = await findOrBuildTemporalCli();
    const signal = (input: unknown) =>
      promisify(execFile)(temporal, [
        'workflow',
        'signal',
        '--address',
        target.address,
        '--namespace',
        target.namespace,
        '--workflow-id',
        thread.threadId,
        '--name',
        'sendMessageSignal',
        '--input',
        JSON.stringify(input),
      ]);
    await signal({ messageId: 'from-cli', text: 'sent by the Temporal CLI' });
    await signal({ messageId: 'blank', text: '   ' });
    expect(await thread.turn(2).result()).toMatchObject({ messageIds: ['from-cli'], output: 'Reply to sent by the Temporal CLI' });
    const events: RunEvent[] = [];
    for await (const event of thread.run.events({ signal: AbortSignal.timeout(3_000) })) events.push(event);
    expect(events).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'signal-ignored', signal: 'sendMessageSignal', reason: 'text: must not be empty' })]),
    );
    expect((await thread.status()).turnsCompleted).toBe(2);
    await recordHistory('thread-signal', thread.run);
    await thread.close();
  });

  it('closes itself after its idle timeout', async () => {
    const thread = threadOf('many', { idleTimeout: '2s' });
    await (await thread.send('hi')).result();
    const closed = (await thread.run.workflow.result()) as ThreadResult;
    expect(closed).toMatchObject({ turnsCompleted: 1, closedReason: 'idle for 2 s' });
  });

  it('continues as new between and inside turns, keeping its queue, turn numbers and conversation', async () => {
    const thread = threadOf('chat', { historyEventLimit: 12 });
    expect((await (await thread.send('hello')).result()).output).toBe('Answer 1: hello');
    const second = await thread.send('again');
    expect((await second.result()).output).toBe('Answer 2: again / looked up');
    const executions: string[] = [];
    for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${thread.threadId}'` })) executions.push(execution.runId);
    expect(executions.length).toBeGreaterThan(1);
    expect(await thread.status()).toMatchObject({ turnsCompleted: 2, phase: 'idle' });
    await recordHistory('thread-continued', thread.run);
    await thread.close();
  });
});
