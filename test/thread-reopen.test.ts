// Reopening closed threads (whenClosed: 'reopen'): explicit close, idle timeout, concurrent senders, and the default refusal.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ThreadHandle, ThreadOptions } from '../src/client/thread-handle';
import { ErrorCode } from '../src/protocol/errors';
import { eventsQuery } from '../src/protocol/run-messages';
import type { ThreadResult } from '../src/protocol/thread-types';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

const scripts = {
  many: { replies: Array.from({ length: 40 }, () => ({ text: 'Reply to {{user}}' })) },
  // A turn that is still running when the close arrives.
  slow: { replies: Array.from({ length: 10 }, () => ({ delayMs: 1_500, text: 'Reply to {{user}}' })) },
};
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({ tools: [], scripts });
});

afterAll(async () => {
  await env?.close();
});

function threadOptions(options: Partial<ThreadOptions> = {}): ThreadOptions {
  return { config: { name: 'assistant', model: 'scripted:many' }, whenClosed: 'reopen', ...options };
}

function newThread(options: Partial<ThreadOptions> = {}): ThreadHandle {
  return env.agents.thread(`reopen-${randomUUID().slice(0, 8)}`, threadOptions(options));
}

/** Run ids of every execution of the thread, oldest first, once visibility lists at least `atLeast` (it lags a little). */
async function executionsOf(threadId: string, atLeast = 1): Promise<string[]> {
  return eventually(async () => {
    const found = await listExecutions(threadId);
    return found.length >= atLeast ? found : undefined;
  });
}

async function listExecutions(threadId: string): Promise<string[]> {
  const found: Array<{ runId: string; startTime: Date }> = [];
  for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${threadId}'` }))
    found.push({ runId: execution.runId, startTime: execution.startTime });
  return found.sort((a, b) => a.startTime.getTime() - b.startTime.getTime()).map((execution) => execution.runId);
}

/** The closed execution's result (the latest execution, which must be closed). */
async function closedResult(thread: ThreadHandle): Promise<ThreadResult> {
  return (await thread.run.workflow.result()) as ThreadResult;
}

describe('reopening closed threads', () => {
  it('continues a thread closed on request where it ended: its conversation, turn numbers, settings and remembered message ids', async () => {
    const thread = newThread({ resourceId: 'user:reopen' });
    expect(await (await thread.send('hello', { messageId: 'first' })).result()).toMatchObject({ turn: 1, output: 'Reply to hello' });
    await thread.close('for now');
    const closed = await closedResult(thread);
    expect(closed).toMatchObject({
      turnsCompleted: 1,
      closedReason: 'for now',
      reopenWith: { settings: { whenClosed: 'reopen', resourceId: 'user:reopen' } },
    });
    const [closedRunId] = await executionsOf(thread.threadId);

    const again = await thread.send('back again');
    expect(again.receipt).toMatchObject({ turn: 2, disposition: 'started', duplicate: false });
    expect(await again.result()).toMatchObject({ turn: 2, output: 'Reply to back again', firstStep: 2, lastStep: 2 });
    // The reopened turn's model saw the closed execution's conversation.
    const call = env.modelCalls.at(-1)!;
    expect(call.request.messages.map((message) => message.content)).toEqual(expect.arrayContaining(['hello', 'Reply to hello', 'back again']));
    expect(await thread.status()).toMatchObject({ phase: 'idle', turnsCompleted: 2, settings: { whenClosed: 'reopen', resourceId: 'user:reopen' } });
    // A message id the closed execution had seen is still answered once.
    expect((await thread.send('hello', { messageId: 'first' })).receipt).toMatchObject({ turn: 1, duplicate: true });

    await thread.close('again');
    await closedResult(thread);
    // A sender without the config reopens it too: the closed result holds everything.
    const third = await env.agents.thread(thread.threadId).send('third time');
    expect(await third.result()).toMatchObject({ turn: 3, output: 'Reply to third time' });
    expect(await executionsOf(thread.threadId, 3)).toHaveLength(3);

    await recordHistory('thread-reopen-closed', env.agents.getRun(thread.threadId, closedRunId));
    await thread.close('done');
    await closedResult(thread);
    await recordHistory('thread-reopened', thread.run);
  });

  it('reopens a thread its idle timeout closed', async () => {
    const thread = newThread({ idleTimeout: '2s' });
    await (await thread.send('before the pause')).result();
    expect(await closedResult(thread)).toMatchObject({ closedReason: 'idle for 2 s', turnsCompleted: 1 });
    const after = await thread.send('after the pause');
    expect(await after.result()).toMatchObject({ turn: 2, output: 'Reply to after the pause' });
    expect(env.modelCalls.at(-1)!.request.messages.map((message) => message.content)).toEqual(
      expect.arrayContaining(['before the pause', 'Reply to before the pause']),
    );
    await thread.close();
  });

  it('starts one execution for two messages sent at once to a closed thread, and answers each once', async () => {
    const thread = newThread();
    await (await thread.send('one')).result();
    await thread.close();
    await closedResult(thread);

    const [a, b] = await Promise.all([
      env.agents.thread(thread.threadId, threadOptions()).send('two', { messageId: 'two' }),
      env.agents.thread(thread.threadId, threadOptions()).send('three', { messageId: 'three' }),
    ]);
    expect([a.turn, b.turn].sort()).toEqual([2, 3]);
    expect([a.receipt.duplicate, b.receipt.duplicate]).toEqual([false, false]);
    const results = await Promise.all([a.result(), b.result()]);
    expect(results.map((result) => result.output).sort()).toEqual(['Reply to three', 'Reply to two']);
    expect(await executionsOf(thread.threadId, 2)).toHaveLength(2);
    const status = await thread.status();
    expect(status.turnsCompleted).toBe(3);
    expect(status.recentTurns.map((turn) => turn.messageIds)).toEqual(expect.arrayContaining([['two'], ['three']]));
    await thread.close();
  });

  it('answers a message sent while the thread closes, once: 10 races of a close and a send, idle and in a turn', async () => {
    const paths: string[] = [];
    for (let race = 0; race < 10; race++) {
      const busy = race % 2 === 1;
      const thread = newThread({ config: { name: 'assistant', model: busy ? 'scripted:slow' : 'scripted:many' } });
      const first = await thread.send(`first ${race}`, { messageId: 'first' });
      if (!busy) await first.result();
      const { runId: firstRunId } = await thread.run.workflow.describe();
      // The close and the message race: the message leaves 0 to 360 ms after the close.
      const [closed, sent] = await Promise.all([
        thread.close('race'),
        new Promise((resolve) => setTimeout(resolve, (race >> 1) * 90)).then(() => thread.send(`raced ${race}`, { messageId: 'raced' })),
      ]);
      expect(closed.turnsCompleted).toBeLessThanOrEqual(1);
      expect(sent.receipt).toMatchObject({ messageId: 'raced', duplicate: false });
      expect(await sent.result()).toMatchObject({ output: `Reply to raced ${race}`, messageIds: ['raced'] });
      expect(await first.result()).toMatchObject({ turn: 1, output: `Reply to first ${race}` });

      // Each message answered by exactly one turn, across the executions; no model call twice for one.
      const status = await thread.status();
      expect(status.turnsCompleted).toBe(2);
      expect(status.recentTurns.map((turn) => turn.messageIds)).toEqual([['first'], ['raced']]);
      for (const text of [`first ${race}`, `raced ${race}`]) {
        expect(env.modelCalls.filter((call) => call.request.messages.at(-1)?.content === text)).toHaveLength(1);
      }
      const { runId } = await thread.run.workflow.describe();
      const { events } = await thread.run.workflow.query(eventsQuery, 0, 500);
      const withdrawn = events.some((event) => event.type === 'thread-close-withdrawn');
      const open = runId !== firstRunId || withdrawn;
      paths.push(`${busy ? 'in a turn' : 'idle'}: ${runId !== firstRunId ? 'reopened' : withdrawn ? 'close withdrawn' : 'sent before the close'}`);
      // Reopened or its close withdrawn, the thread stays open; a message that came before the
      // close was answered, and the thread closes (maybe not yet) as asked.
      if (open) await thread.close();
      await closedResult(thread);
    }
    console.log(`reopen during a close, 10 races: ${paths.join('; ')}`);
  }, 180_000);

  it('refuses a message to a closed thread that does not reopen (the default), and checks the option', async () => {
    const thread = env.agents.thread(`refuse-${randomUUID().slice(0, 8)}`, { config: { name: 'assistant', model: 'scripted:many' } });
    await (await thread.send('hi')).result();
    await thread.close();
    expect(await closedResult(thread)).not.toHaveProperty('reopenWith');
    await expect(thread.send('still there?')).rejects.toMatchObject({ code: ErrorCode.threadClosed });
    await expect(env.agents.thread(thread.threadId).send('still there?')).rejects.toMatchObject({ code: ErrorCode.threadClosed });
    expect(await executionsOf(thread.threadId)).toHaveLength(1);
    expect(() => env.agents.thread('x', { whenClosed: 'revive' as never })).toThrow(/whenClosed: must be one of refuse, reopen, not "revive"/);
  });
});
