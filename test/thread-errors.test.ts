import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { AgentClient } from '../src/client/agent-client';
import { historyCommand } from '../src/cli/commands/history-command';
import { threadCloseCommand, threadShowCommand } from '../src/cli/commands/thread-commands';
import { ErrorCode } from '../src/protocol/errors';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';
import { printed } from './support/printed';

/**
 * What a thread says when it is not what a caller expects, on the real dev server: a terminated
 * thread (or one being deleted) is closed, not running; an unknown id is `ThreadNotFound` in every
 * read; an empty message is named a thread message; a sender waiting on a deleted thread is told so.
 */

const testTools = createTestTools();
let env: TestEnvironment;
let folder: string;
let agents: AgentClient;

const scripts = {
  many: { replies: Array.from({ length: 20 }, () => ({ text: 'Reply to {{user}}' })) },
  // The turn waits inside the gate tool until the test opens it (or the thread is ended).
  gated: { replies: [{ toolCalls: [{ name: 'gate', args: {} }] }, { text: 'done' }] },
};

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'thread-errors-'));
  const artifacts = new FolderArtifactStore(path.join(folder, 'artifacts'));
  env = await createTestEnvironment({ tools: testTools.tools, scripts, artifacts });
  agents = new AgentClient(env.client, { taskQueue: env.taskQueue, namespace: env.client.options.namespace, uiUrl: null, artifacts });
});

afterAll(async () => {
  testTools.gateControl.open();
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** A thread whose first turn is running, waiting inside the gate tool. */
async function threadInsideGate(prefix: string) {
  // A gate left closed by an earlier test (its thread ended from outside) is released first.
  testTools.gateControl.open();
  testTools.gateControl.reset();
  const thread = agents.thread(`${prefix}-${randomUUID().slice(0, 8)}`, { config: { name: 'assistant', model: 'scripted:gated', tools: ['gate'] } });
  const turn = await thread.send('open the gate');
  await testTools.gateControl.reached();
  await eventually(async () => (await thread.status()).phase === 'running');
  return { thread, turn };
}

describe('a thread that was ended from outside', () => {
  it('is closed, not running, in status() and `thread show` once terminated', async () => {
    const { thread } = await threadInsideGate('terminated');
    await thread.run.workflow.terminate('ops stopped it');
    const status = await eventually(async () => {
      const now = await thread.status();
      return now.phase === 'closed' ? now : undefined;
    }, 30_000);
    expect(status).toMatchObject({ phase: 'closed', currentTurn: null, queued: [], closedReason: 'terminated: ops stopped it' });
    const shown = await printed(() => threadShowCommand(thread.threadId, {}, agents));
    expect(shown).toContain(`Thread ${thread.threadId} (assistant): closed (terminated: ops stopped it), 0 turn(s) answered`);
    expect(shown).not.toContain('Running: turn');
    const json = JSON.parse(await printed(() => threadShowCommand(thread.threadId, { json: true }, agents))) as { phase: string };
    expect(json.phase).toBe('closed');
  }, 90_000);

  it('tells a sender waiting for its turn that the thread was deleted', async () => {
    const { thread, turn } = await threadInsideGate('deleted');
    const waiting = turn.result().then(
      () => null,
      (error: unknown) => error,
    );
    await thread.delete();
    const error = await waiting;
    expect(error).toMatchObject({ code: ErrorCode.turnResultUnavailable, threadId: thread.threadId });
    expect((error as Error).message).toContain(`thread ${thread.threadId} was deleted`);
    // Being deleted (Temporal deletes executions a moment after the request): closed, or not found once gone.
    const after = await thread.status().catch((failure: unknown) => failure);
    if (after instanceof Error) expect(after).toMatchObject({ code: ErrorCode.threadNotFound, threadId: thread.threadId });
    else expect(after).toMatchObject({ phase: 'closed', currentTurn: null, closedReason: 'terminated: thread deleted' });
  }, 90_000);
});

describe('an unknown thread id', () => {
  it('is ThreadNotFound in status(), messages(), history(), close() and the CLI', async () => {
    const threadId = `no-such-thread-${randomUUID().slice(0, 8)}`;
    const thread = agents.thread(threadId);
    const notFound = { code: ErrorCode.threadNotFound, threadId };
    await expect(thread.status()).rejects.toMatchObject(notFound);
    await expect(thread.messages()).rejects.toMatchObject(notFound);
    await expect(thread.history()).rejects.toMatchObject(notFound);
    await expect(thread.close()).rejects.toMatchObject(notFound);
    await expect(threadShowCommand(threadId, {}, agents)).rejects.toMatchObject(notFound);
    await expect(threadShowCommand(threadId, { messages: true }, agents)).rejects.toMatchObject(notFound);
    await expect(threadCloseCommand(threadId, {}, agents)).rejects.toMatchObject(notFound);
    await expect(historyCommand(threadId, {}, agents)).rejects.toMatchObject(notFound);
  });

  it('is ThreadNotFound for the id of a run (not a thread), naming what it is', async () => {
    const run = await agents.startRun({ config: { name: 'runner', model: 'scripted:many' }, task: 'hi', checkWorkerTools: false });
    await run.result();
    const thread = agents.thread(run.workflowId);
    for (const read of [() => thread.status(), () => thread.messages(), () => thread.history(), () => thread.close()]) {
      await expect(read()).rejects.toMatchObject({ code: ErrorCode.threadNotFound, message: expect.stringContaining('not a thread') });
    }
  });
});

describe('messages and transcripts', () => {
  it('calls an empty message a thread message, and never prints task: undefined', async () => {
    const thread = agents.thread(`plain-${randomUUID().slice(0, 8)}`, { config: { name: 'assistant', model: 'scripted:many' } });
    await expect(thread.send('   ')).rejects.toMatchObject({ code: ErrorCode.emptyMessage, message: 'text: a thread message must not be empty' });
    await (await thread.send('hello')).result();
    await expect(thread.send('')).rejects.toMatchObject({ code: ErrorCode.emptyMessage, message: 'text: a thread message must not be empty' });
    const shown = await printed(() => historyCommand(thread.threadId, {}, agents));
    expect(shown).toContain('hello');
    expect(shown).not.toContain('undefined');
  });
});
