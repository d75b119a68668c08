import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ErrorCode } from '../src/protocol/errors';
import type { RunEvent } from '../src/protocol/run-events';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * User text over Temporal's payload limit (2 MB) never reaches a workflow's validator: the client
 * refuses it first, with a typed error naming the field and its limit, and sends nothing. Tried
 * with a 3 MB text at every entry point that sends user text: a thread's first and later messages,
 * a run's task, a thread's earlier messages, injected messages, an approval's reason, a close reason.
 */

const testTools = createTestTools();
let env: TestEnvironment;
const threeMegabytes = 'x'.repeat(3_000_000);

const scripts = {
  many: { replies: Array.from({ length: 20 }, () => ({ text: 'Reply to {{user}}' })) },
  gated: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'done: {{tool:echo}}' }] },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  await env?.close();
});

async function exists(workflowId: string): Promise<boolean> {
  return env.client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      () => true,
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      },
    );
}

const textTooLong = { code: ErrorCode.invalidMessage, message: 'text: must be at most 100,000 characters, not 3,000,000' };

describe('a 3 MB message to a thread', () => {
  it('is refused before the thread is created, naming the limit', async () => {
    const thread = env.agents.thread(`huge-first-${randomUUID().slice(0, 8)}`, { config: { name: 'assistant', model: 'scripted:many' } });
    await expect(thread.send(threeMegabytes)).rejects.toMatchObject(textTooLong);
    expect(await exists(thread.threadId)).toBe(false);
  });

  it('is refused by an existing thread, which takes no turn and queues nothing', async () => {
    const thread = env.agents.thread(`huge-later-${randomUUID().slice(0, 8)}`, { config: { name: 'assistant', model: 'scripted:many' } });
    await (await thread.send('hello')).result();
    await expect(thread.send(threeMegabytes)).rejects.toMatchObject(textTooLong);
    await expect(env.agents.thread(thread.threadId).send(threeMegabytes, { policy: 'inject' })).rejects.toMatchObject(textTooLong);
    await expect(thread.close('y'.repeat(3_000_000))).rejects.toMatchObject({
      code: ErrorCode.invalidMessage,
      message: 'reason: must be at most 1,000 characters, not 3,000,000',
    });
    const status = await thread.status();
    expect(status).toMatchObject({ phase: 'idle', turnsCompleted: 1, currentTurn: null, queued: [], closedReason: null });
    // One message at the limit is still taken.
    const atLimit = await thread.send('z'.repeat(100_000));
    expect((await atLimit.result()).stopReason).toBe('completed');
  });

  it("is refused as a thread's earlier messages (over 1 MB of input), naming the field", async () => {
    const thread = env.agents.thread(`huge-messages-${randomUUID().slice(0, 8)}`, {
      config: { name: 'assistant', model: 'scripted:many' },
      messages: [{ role: 'user', content: threeMegabytes }],
    });
    await expect(thread.send('hello')).rejects.toMatchObject({ code: ErrorCode.payloadTooLarge, field: 'messages', limitBytes: 1_000_000 });
    expect(await exists(thread.threadId)).toBe(false);
  });
});

describe('a 3 MB text for a run', () => {
  it('is refused as a task before the run starts, naming the field and the limit', async () => {
    const workflowId = `huge-task-${randomUUID().slice(0, 8)}`;
    const refusal = env.agents.startRun({ config: { name: 'runner', model: 'scripted:many' }, task: threeMegabytes, workflowId });
    await expect(refusal).rejects.toMatchObject({
      code: ErrorCode.payloadTooLarge,
      field: 'task',
      limitBytes: 1_000_000,
      message: expect.stringContaining('must be at most 1,000,000 bytes'),
    });
    expect(await exists(workflowId)).toBe(false);
  });

  it('is refused as an injected message and as an approval reason; the run goes on unchanged', async () => {
    const run = await env.agents.startRun({
      config: { name: 'gatekeeper', model: 'scripted:gated', tools: ['echo'], hitl_tools: ['echo'] },
      task: 'Go',
    });
    const request = await eventually(async () => (await run.status()).pendingApprovals[0], 60_000);
    await expect(run.inject(threeMegabytes)).rejects.toMatchObject(textTooLong);
    await expect(run.injectAndConfirm(threeMegabytes)).rejects.toMatchObject(textTooLong);
    await expect(run.reject(request.approvalId, { reason: threeMegabytes })).rejects.toMatchObject({
      code: ErrorCode.invalidMessage,
      message: 'reason: must be at most 4,000 characters, not 3,000,000',
    });
    const status = await run.status();
    expect(status.pendingApprovals.map((pending) => pending.approvalId)).toEqual([request.approvalId]);
    expect(status.queuedMessages).toBe(0);
    await run.approve(request.approvalId);
    expect((await run.result()).output).toBe('done: hi');
    const events: RunEvent[] = [];
    for await (const event of run.events()) events.push(event);
    expect(events.filter((event) => event.type === 'message-injected')).toEqual([]);
  });
});
