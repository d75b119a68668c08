// Hooks and tool policies on one call, on a real dev server: the hook first, the policy on the hook's arguments, one approval with both reasons.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ToolPolicyRule } from '../src/config/tool-policy-rules';
import { renderTranscript, transcriptFromEvents, type TranscriptEntry } from '../src/history/history-view';
import { defineHook, type AnyHook } from '../src/hooks/define-hook';
import type { CallDecider } from '../src/protocol/call-deciders';
import { ErrorCode } from '../src/protocol/errors';
import { approvalSignal } from '../src/protocol/run-messages';
import { recordHistory } from './support/history-recorder';
import { createShopTools, pendingApprovalsOf } from './support/shop-tools';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

/**
 * Where a worker's before-tool hook and the agent's tool policies meet (docs/hooks.md): the hook
 * decides first and may change the arguments; the policy judges the arguments the hook produced;
 * a call that both send for approval waits once, its request naming both; a denied call names who
 * denied it. The `history` view reads the approvals such calls waited for.
 */

const { refund, sendEmail, executions } = createShopTools();

const hooks: AnyHook[] = [
  defineHook({
    name: 'finance-review',
    point: 'before-tool',
    agents: ['guarded'],
    run: ({ call }) =>
      call.name === 'refund' && Number(call.args.amount) > 500
        ? { action: 'require_approval', reason: 'refunds over 500 go to the finance lead' }
        : undefined,
  }),
  defineHook({
    name: 'route-complaints',
    point: 'before-tool',
    agents: ['guarded'],
    run: ({ call }) =>
      call.name === 'send_email' && String(call.args.subject).startsWith('Complaint')
        ? { action: 'modify', args: { ...call.args, to: 'support@example.com' }, reason: 'complaints go to support' }
        : undefined,
  }),
];

const policies: ToolPolicyRule[] = [
  {
    tool: 'refund',
    when: { properties: { amount: { type: 'number', exclusiveMinimum: 100 } }, required: ['amount'] },
    action: 'require_approval',
    reason: 'Refunds over 100 need a second pair of eyes',
  },
  {
    tool: 'send_email',
    when: { properties: { to: { type: 'string', not: { pattern: '@example\\.com$' } } }, required: ['to'] },
    action: 'deny',
    reason: 'No mail outside the company',
  },
];

const scripts = {
  guarded: {
    replies: [
      {
        toolCalls: [
          { name: 'refund', args: { order: 'A', amount: 800 } },
          { name: 'refund', args: { order: 'B', amount: 300 } },
          { name: 'send_email', args: { to: 'eve@elsewhere.test', subject: 'Complaint about order A' } },
          { name: 'send_email', args: { to: 'eve@elsewhere.test', subject: 'Hello' } },
        ],
      },
      { text: 'Done' },
    ],
  },
};

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({ tools: [refund, sendEmail], scripts, hooks });
});

afterAll(async () => {
  await env?.close();
});

const review: CallDecider = {
  kind: 'hook',
  hook: 'finance-review',
  action: 'require_approval',
  reason: 'refunds over 500 go to the finance lead',
  modified: false,
};
const secondPair: CallDecider = { kind: 'policy', rule: 0, action: 'require_approval', reason: 'Refunds over 100 need a second pair of eyes' };

describe('a before-tool hook and tool policies on the same calls', () => {
  it('asks once for a call both send for approval, judges the hook’s arguments, and names who denied', async () => {
    const run = await env.agents.startRun({
      config: { name: 'guarded', model: 'scripted:guarded', tools: ['refund', 'send_email'], tool_policies: policies },
      task: 'Handle order A',
    });
    const pending = await pendingApprovalsOf(run, 2);
    // One request per call, the first naming the hook and the rule (in the order they decided).
    expect(pending.map((request) => [request.approvalId, request.args, request.requiredBy])).toEqual([
      ['step-1.call-1', { order: 'A', amount: 800 }, [review, secondPair]],
      ['step-1.call-2', { order: 'B', amount: 300 }, [secondPair]],
    ]);
    // Signals, so that the history view has to know which calls waited (an update is checked by the run itself).
    await run.workflow.signal(approvalSignal, { approvalId: 'step-1.call-1', decision: 'approve', decidedBy: 'finance-lead' });
    await run.workflow.signal(approvalSignal, { approvalId: 'step-1.call-2', decision: 'approve', decidedBy: 'ops' });
    await run.workflow.signal(approvalSignal, { approvalId: 'step-1.call-1', decision: 'reject', decidedBy: 'mallory' });
    const result = await run.result();
    await recordHistory('hooks-policy-approval', run);

    const [big, small, complaint, hello] = result.toolResults;
    expect(big).toMatchObject({
      isError: false,
      content: 'refunded 800 on A',
      metadata: { approval_status: 'approved', approval_decided_by: 'finance-lead', decided_by: [review, secondPair] },
    });
    expect(small).toMatchObject({ isError: false, metadata: { approval_status: 'approved', decided_by: [secondPair] } });
    // The policy judged the address the hook wrote, not the model's: the complaint went to support.
    expect(complaint).toMatchObject({
      isError: false,
      content: 'sent to support@example.com',
      metadata: {
        approval_status: 'not_required',
        decided_by: [{ kind: 'hook', hook: 'route-complaints', action: 'allow', reason: 'complaints go to support', modified: true }],
      },
    });
    expect(hello).toMatchObject({
      isError: true,
      errorCode: ErrorCode.toolDenied,
      metadata: { status: 'denied', decided_by: [{ kind: 'policy', rule: 1, action: 'deny', reason: 'No mail outside the company' }] },
    });
    expect(executions.map((execution) => [execution.tool, execution.args.order ?? execution.args.to])).toEqual(
      expect.arrayContaining([
        ['refund', 'A'],
        ['refund', 'B'],
        ['send_email', 'support@example.com'],
      ]),
    );
    expect(executions).toHaveLength(3);

    // The history view: both approvals were waiting (the signals applied), the third came too late; who decided each call.
    const entries = transcriptFromEvents((await run.workflow.fetchHistory()).events ?? []);
    const signals = entries.filter((entry): entry is Extract<TranscriptEntry, { kind: 'signal' | 'update' }> => entry.kind === 'signal');
    expect(signals.map((entry) => entry.ignored ?? null)).toEqual([null, null, "approval 'step-1.call-1' was already approved by finance-lead"]);
    const text = renderTranscript({ workflowId: run.workflowId, runId: 'run', entries });
    expect(text).toContain(
      'decided by hook finance-review (refunds over 500 go to the finance lead): require_approval, tool_policies[0] (Refunds over 100 need a second pair of eyes): require_approval',
    );
    expect(text).toContain(
      'status denied · error ToolDenied · approval not_required · decided by tool_policies[1] (No mail outside the company): deny',
    );
  });
});
