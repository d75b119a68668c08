import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decideApproval } from '../src/console/console-actions';
import { startConsole } from '../src/console/console-server';
import { readInbox, readRunPage } from '../src/console/console-reads';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/** What the console reads and decides for threads (the browser tests use runs), and sign-in through a proxy's header, on the real dev server and worker. */

const testTools = createTestTools();
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      refund: {
        replies: [{ text: 'Refunding.', toolCalls: [{ name: 'echo', args: { text: 'refund order 7' } }] }, { text: 'Refunded: {{tool:echo}}' }],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

describe('the console on threads', () => {
  it("lists a thread's pending call in the inbox with its conversation, and lets one decider win", async () => {
    const threadId = `console-thread-approval-${randomUUID().slice(0, 8)}`;
    const thread = env.agents.thread(threadId, { config: { name: 'support', model: 'scripted:refund', tools: ['echo'], hitl_tools: ['echo'] } });
    const turn = await thread.send('Please refund order 7');
    const item = await eventually(async () => (await readInbox(env.agents)).items.find((entry) => entry.run.workflowId === threadId), 30_000);
    expect(item.run).toMatchObject({ kind: 'thread', agent: 'support', status: 'awaiting_approval' });
    expect(item.approval).toMatchObject({ toolName: 'echo', args: { text: 'refund order 7' } });
    expect(item.conversation.map((message) => message.content)).toEqual(['Please refund order 7', 'Refunding.']);

    const rules = [{ tools: ['echo'], identities: ['*@finance.example.com'] }];
    const decision = { workflowId: threadId, approvalId: item.approval.approvalId, reason: undefined };
    await expect(decideApproval(env.agents, rules, { ...decision, decision: 'approve', identity: 'bob@example.com' })).resolves.toMatchObject({
      ok: false,
      httpStatus: 403,
    });
    const [first, second] = await Promise.all([
      decideApproval(env.agents, rules, { ...decision, decision: 'approve', identity: 'ann@finance.example.com' }),
      decideApproval(env.agents, rules, { ...decision, decision: 'reject', identity: 'cho@finance.example.com' }),
    ]);
    const results = [first, second];
    const won = results.filter((result) => result.ok);
    expect(won).toHaveLength(1);
    const lost = results.find((result) => !result.ok)!;
    expect(lost).toMatchObject({ httpStatus: 409, decidedBy: won[0]!.decidedBy, outcome: won[0]!.outcome });

    await turn.result();
    const page = await readRunPage(env.agents, threadId);
    expect(page.thread?.turns).toHaveLength(1);
    const decided = page.thread!.turns[0]!.entries.filter((entry) => entry.kind === 'update' && entry.name === 'decideApproval');
    expect(decided.map((entry) => (entry as { payload: { decidedBy: string } }).payload.decidedBy)).toEqual([won[0]!.decidedBy]);
    await thread.close();
  });

  it('takes the identity from a trusted proxy header, and refuses requests without it', async () => {
    const running = await startConsole({ agents: env.agents, port: 0, access: { trustedHeader: 'X-Forwarded-User' } });
    try {
      const signedIn = await fetch(`${running.url}/runs`, { headers: { 'X-Forwarded-User': 'dana@example.com', Accept: 'text/html' } });
      expect(signedIn.status).toBe(200);
      expect(await signedIn.text()).toContain('<strong id="identity">dana@example.com</strong>');
      const anonymous = await fetch(`${running.url}/runs`, { headers: { Accept: 'application/json' } });
      expect(anonymous.status).toBe(401);
      const withoutCsrf = await fetch(`${running.url}/runs/x/cancel`, { method: 'POST', headers: { 'X-Forwarded-User': 'dana@example.com' } });
      expect(withoutCsrf.status).toBe(403);
    } finally {
      await running.close();
    }
  });
});
