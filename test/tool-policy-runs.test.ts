import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunHandle } from '../src/client/run-handle';
import { ErrorCode } from '../src/protocol/errors';
import type { RunEvent } from '../src/protocol/run-events';
import type { ToolPolicyRule } from '../src/config/tool-policy-rules';
import { recordHistory } from './support/history-recorder';
import { createShopTools, pendingApprovalsOf } from './support/shop-tools';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

/**
 * Tool policies on a real dev server and worker: a refund over 100 waits for an approval whose
 * request names the rule, a smaller one runs at once; `delete_*` is denied (an error result the
 * model sees, the tool never runs); mail outside the company's domain waits, and a rejection
 * reaches the model; an allow rule cannot lift `hitl_tools`.
 */

const { refund, deleteUser, sendEmail, executions } = createShopTools();

const scripts = {
  refunds: {
    replies: [
      {
        toolCalls: [
          { name: 'refund', args: { order: 'A-1', amount: 250 } },
          { name: 'refund', args: { order: 'A-2', amount: 40 } },
        ],
      },
      { text: 'Done: {{tool:refund}}' },
    ],
  },
  deleting: { replies: [{ toolCalls: [{ name: 'delete_user', args: { user: 'u-7' } }] }, { text: 'I could not: {{tool:delete_user}}' }] },
  mailing: {
    replies: [
      {
        toolCalls: [
          { name: 'send_email', args: { to: 'eve@elsewhere.test', subject: 'Hi' } },
          { name: 'send_email', args: { to: 'bob@example.com', subject: 'Hi' } },
        ],
      },
      { text: 'Mail handled' },
    ],
  },
  allowedButGated: { replies: [{ toolCalls: [{ name: 'refund', args: { order: 'B-1', amount: 5 } }] }, { text: 'Refunded' }] },
};

const policies: ToolPolicyRule[] = [
  {
    tool: 'refund',
    when: { properties: { amount: { type: 'number', exclusiveMinimum: 100 } }, required: ['amount'] },
    action: 'require_approval',
    reason: 'Refunds over 100 need a second pair of eyes',
  },
  { tool: 'delete_*', action: 'deny', reason: 'This agent never deletes accounts' },
  {
    tool: 'send_email',
    when: { properties: { to: { type: 'string', format: 'email', not: { pattern: '@example\\.com$' } } }, required: ['to'] },
    action: 'require_approval',
  },
];

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({ tools: [refund, deleteUser, sendEmail], scripts });
});

afterAll(async () => {
  await env?.close();
});

function config(model: keyof typeof scripts, extra: Record<string, unknown> = {}) {
  return { name: 'support', model: `scripted:${model}`, tools: ['refund', 'delete_user', 'send_email'], tool_policies: policies, ...extra };
}

const ran = (tool: string) => executions.filter((execution) => execution.tool === tool);

async function eventsOf(run: RunHandle): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

describe('tool policies', () => {
  it('sends a refund over 100 for approval, naming the rule, and runs a smaller one at once', async () => {
    const run = await env.agents.startRun({ config: config('refunds'), task: 'Refund both orders' });
    const [request] = await pendingApprovalsOf(run, 1);
    expect(request).toMatchObject({
      approvalId: 'step-1.call-1',
      toolName: 'refund',
      args: { order: 'A-1', amount: 250 },
      requiredBy: [{ kind: 'policy', rule: 0, action: 'require_approval', reason: 'Refunds over 100 need a second pair of eyes' }],
    });
    // The small refund did not wait for the big one's decision.
    await eventually(async () => (ran('refund').some((execution) => (execution.args as { order: string }).order === 'A-2') ? true : undefined));
    expect(ran('refund').some((execution) => (execution.args as { order: string }).order === 'A-1')).toBe(false);

    await run.approve('step-1.call-1', { decidedBy: 'finance@example.com', reason: 'ticket 9' });
    const result = await run.result();
    await recordHistory('policy-approval', run);
    const [big, small] = result.toolResults;
    expect(big?.metadata).toMatchObject({
      status: 'success',
      approval_status: 'approved',
      approval_decided_by: 'finance@example.com',
      decided_by: [{ kind: 'policy', rule: 0, action: 'require_approval' }],
    });
    expect(small?.metadata).toMatchObject({ status: 'success', approval_status: 'not_required' });
    expect(small?.metadata.decided_by).toBeUndefined();
    const requested = (await eventsOf(run)).find((event) => event.type === 'approval-requested');
    expect(requested).toMatchObject({ request: { requiredBy: [{ kind: 'policy', rule: 0 }] } });
  });

  it('denies delete_*: an error result with the rule the model sees, and the tool never runs', async () => {
    const before = ran('delete_user').length;
    const run = await env.agents.startRun({ config: config('deleting'), task: 'Delete user u-7' });
    const result = await run.result();
    await recordHistory('policy-deny', run);
    const [denied] = result.toolResults;
    expect(denied).toMatchObject({ toolName: 'delete_user', isError: true, errorCode: ErrorCode.toolDenied });
    expect(denied?.metadata).toMatchObject({
      status: 'denied',
      approval_status: 'not_required',
      decided_by: [{ kind: 'policy', rule: 1, action: 'deny', reason: 'This agent never deletes accounts' }],
    });
    expect(result.output).toBe(
      "I could not: Error: the call to 'delete_user' was denied by policy (tool_policies[1]): This agent never deletes accounts. The tool did not run.",
    );
    expect(ran('delete_user').length).toBe(before);
  });

  it('sends mail outside the company domain for approval; a rejection reaches the model with the rule', async () => {
    const run = await env.agents.startRun({ config: config('mailing'), task: 'Mail Eve and Bob' });
    const [request] = await pendingApprovalsOf(run, 1);
    expect(request).toMatchObject({
      toolName: 'send_email',
      args: { to: 'eve@elsewhere.test' },
      requiredBy: [
        { kind: 'policy', rule: 2, reason: 'tool_policies[2]: calls to send_email with arguments matching its condition need an approval' },
      ],
    });
    await run.reject(request!.approvalId, { reason: 'not to outsiders', decidedBy: 'compliance' });
    const result = await run.result();
    const [outside, inside] = result.toolResults;
    expect(outside).toMatchObject({
      isError: true,
      errorCode: 'ToolRejected',
      metadata: { status: 'rejected', approval_reason: 'not to outsiders', decided_by: [{ kind: 'policy', rule: 2 }] },
    });
    expect(inside).toMatchObject({ isError: false, content: 'sent to bob@example.com', metadata: { approval_status: 'not_required' } });
    expect(ran('send_email').map((execution) => (execution.args as { to: string }).to)).toEqual(['bob@example.com']);
  });

  it('cannot lift hitl_tools with an allow rule: the call still waits for an approval', async () => {
    const run = await env.agents.startRun({
      config: config('allowedButGated', { hitl_tools: ['refund'], tool_policies: [{ tool: 'refund', action: 'allow' }] }),
      task: 'Refund B-1',
    });
    const [request] = await pendingApprovalsOf(run, 1);
    expect(request?.requiredBy).toBeUndefined();
    await run.approve(request!.approvalId);
    const result = await run.result();
    expect(result.toolResults[0]?.metadata).toMatchObject({
      approval_status: 'approved',
      decided_by: [{ kind: 'policy', rule: 0, action: 'allow' }],
    });
  });
});
