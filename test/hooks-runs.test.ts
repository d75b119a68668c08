import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { z } from 'zod';
import type { RunHandle, StartRunOptions } from '../src/client/agent-client';
import { defineHook, type AnyHook } from '../src/hooks/define-hook';
import { ErrorCode } from '../src/protocol/errors';
import { HOOK_POINTS, type HookPoint } from '../src/protocol/hook-types';
import type { RunEvent } from '../src/protocol/run-events';
import { defineTool } from '../src/tools/define-tool';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Lifecycle hooks on a real dev server and worker: every point, in order; redaction that the
 * history records; before-tool decisions (allow, change, deny, require an approval) taken once in
 * the model step; hooks that throw under each `hook_errors`; handoffs, errors and thread turns; and
 * a run that replays on a worker whose hook now decides differently.
 */

const AUDITED = ['refunds', 'lenient', 'fragile', 'fragile-lenient', 'fragile-start', 'handoff-source', 'handoff-target', 'support', 'failing'];
interface AuditEntry {
  point: HookPoint;
  agent: string;
  workflowId: string;
  detail: Record<string, unknown>;
}
const audit: AuditEntry[] = [];
const refunds: Array<{ order: string; amount: number }> = [];
const EMAIL = /[\w.+-]+@[\w-]+\.[\w.]+/g;

/** One audit hook per point, for the agents above: what each saw, in order. */
const auditHooks = HOOK_POINTS.map(
  (point) =>
    defineHook({
      name: `audit-${point}`,
      point,
      agents: AUDITED,
      run: (event) => {
        const {
          agent,
          workflowId,
          runId: _runId,
          attempt: _attempt,
          ...detail
        } = event as unknown as Record<string, unknown> & { agent: string; workflowId: string };
        audit.push({ point, agent, workflowId, detail });
      },
    }) as AnyHook,
);

const hooks: AnyHook[] = [
  ...auditHooks,
  defineHook({
    name: 'redact-model-emails',
    point: 'after-model',
    agents: ['refunds', 'lenient'],
    run: ({ text }) => ({ text: text.replace(EMAIL, '[email]') }),
  }),
  defineHook({
    name: 'redact-tool-emails',
    point: 'after-tool',
    agents: ['refunds', 'lenient'],
    run: ({ result }) => ({ content: result.content.replace(EMAIL, '[email]') }),
  }),
  defineHook({
    name: 'refund-limit',
    point: 'before-tool',
    agents: ['refunds'],
    run: ({ call }) => {
      if (call.name !== 'refund') return undefined;
      const amount = Number(call.args.amount);
      if (amount < 0) return { action: 'deny', reason: 'a refund cannot be negative' };
      return amount > 100 ? { action: 'require_approval', reason: 'refunds over 100 need approval' } : undefined;
    },
  }),
  defineHook({
    name: 'refund-cap',
    point: 'before-tool',
    agents: ['refunds'],
    run: ({ call }) =>
      call.name === 'refund' && Number(call.args.amount) > 1000
        ? { action: 'modify', args: { ...call.args, amount: 1000 }, reason: 'capped at 1000' }
        : undefined,
  }),
  defineHook({
    name: 'fragile-results',
    point: 'after-tool',
    agents: ['fragile', 'fragile-lenient'],
    run: ({ call }) => {
      if (call.name === 'lookup_customer') throw new Error('the redaction service is down');
    },
  }),
  defineHook({
    name: 'fragile-policy',
    point: 'before-tool',
    agents: ['fragile', 'fragile-lenient'],
    run: ({ call }) => {
      if (call.name === 'send_email') throw new Error('the policy service timed out');
    },
  }),
  defineHook({
    name: 'quota-check',
    point: 'run-start',
    agents: ['fragile-start'],
    run: () => {
      throw new Error('quota exceeded for this resource');
    },
  }),
];

const shopTools = [
  defineTool({
    name: 'refund',
    description: 'Refunds an order.',
    parameters: z.object({ order: z.string(), amount: z.number() }),
    execute: ({ order, amount }) => {
      refunds.push({ order, amount });
      return `refunded ${amount} for ${order}`;
    },
  }),
  defineTool({
    name: 'lookup_customer',
    description: 'Finds a customer.',
    parameters: z.object({ id: z.number() }),
    execute: ({ id }) => `customer ${id}: ann@example.com`,
  }),
  defineTool({
    name: 'send_email',
    description: 'Sends an email.',
    parameters: z.object({ to: z.string(), body: z.string() }),
    execute: ({ to }) => `sent to ${to}`,
  }),
];
const testTools = createTestTools();
let env: TestEnvironment;

const scripts = {
  lookup: {
    replies: [
      { toolCalls: [{ name: 'lookup_customer', args: { id: 7 } }] },
      { text: 'I will write to ann@example.com about {{tool:lookup_customer}}' },
    ],
  },
  refunds: {
    replies: [
      {
        toolCalls: [
          { name: 'refund', args: { order: 'A', amount: 50 } },
          { name: 'refund', args: { order: 'B', amount: 150 } },
          { name: 'refund', args: { order: 'C', amount: -5 } },
          { name: 'refund', args: { order: 'D', amount: 5000 } },
        ],
      },
      { text: 'Refunds handled.' },
    ],
  },
  fragile: {
    replies: [
      {
        toolCalls: [
          { name: 'lookup_customer', args: { id: 1 } },
          { name: 'send_email', args: { to: 'bob@example.com', body: 'hi' } },
        ],
      },
      { text: 'done' },
    ],
  },
  transfer: { replies: [{ toolCalls: [{ name: 'transfer_to_handoff-target', args: { reason: 'billing' } }] }, { text: 'The target answers.' }] },
  explode: {
    replies: [
      { toolCalls: [{ name: 'explode', args: {} }] },
      { text: 'x', error: { code: ErrorCode.modelAuthFailed, message: 'the key was revoked' } },
    ],
  },
  chat: { replies: [{ text: 'Hello {{user}}' }, { text: 'Again {{user}}' }] },
  single: { replies: [{ toolCalls: [{ name: 'refund', args: { order: 'R', amount: 150 } }] }, { text: 'Refund: {{tool:refund}}' }] },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: [...shopTools, ...testTools.tools], scripts, hooks });
});

afterAll(async () => {
  await env?.close();
});

function start(name: string, script: keyof typeof scripts, extra: Partial<StartRunOptions['config']> = {}): Promise<RunHandle> {
  return env.agents.startRun({
    config: { name, model: `scripted:${script}`, tools: ['refund', 'lookup_customer', 'send_email', 'explode'], ...extra },
    task: `task of ${name}`,
  });
}

function auditOf(workflowId: string): AuditEntry[] {
  return audit.filter((entry) => entry.workflowId === workflowId);
}

async function eventsOf(run: RunHandle): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

async function historyText(run: RunHandle): Promise<string> {
  return historyToJSON(await run.workflow.fetchHistory());
}

describe('lifecycle hooks', () => {
  it('runs the start, model, tool and end hooks in order, and the history records only the redacted text', async () => {
    const run = await start('refunds', 'lookup');
    const result = await run.result();
    expect(result.output).toBe('I will write to [email] about customer 7: [email]');
    expect(auditOf(run.workflowId).map((entry) => entry.point)).toEqual([
      'run-start',
      'before-model',
      'after-model',
      'before-tool',
      'after-tool',
      'before-model',
      'after-model',
      'run-end',
    ]);
    const [runStart] = auditOf(run.workflowId);
    expect(runStart!.detail).toMatchObject({ task: 'task of refunds' });
    // The second after-model hook saw the model's own text; what the run recorded is the redacted one.
    expect(auditOf(run.workflowId)[6]!.detail).toMatchObject({ text: 'I will write to ann@example.com about customer 7: [email]' });
    expect(auditOf(run.workflowId).at(-1)!.detail).toMatchObject({ stopReason: 'completed', output: result.output, steps: 2 });
    const history = await historyText(run);
    expect(history).not.toContain('ann@example.com');
    expect(history).toContain('runLifecycleHooks');
    await recordHistory('hooks-redaction', run);
  });

  it('leaves runs of agents without hooks alone: no hook activity, nothing in model step results', async () => {
    const run = await start('plain', 'lookup');
    await run.result();
    const recorded = await run.workflow.fetchHistory();
    const events = recorded.events ?? [];
    const activityTypes = events.map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(activityTypes).toEqual(['modelStep', 'runTool', 'modelStep']);
    const history = await historyText(run);
    expect(history).not.toContain('"points"');
    expect(auditOf(run.workflowId)).toEqual([]);
  });

  it('takes before-tool decisions once, in the model step: allow, change the arguments, deny, require an approval', async () => {
    refunds.length = 0;
    const run = await start('refunds', 'refunds');
    const pending = await eventually(async () => {
      const status = await run.status();
      return status.pendingApprovals.length === 2 ? status.pendingApprovals : undefined;
    });
    const byLimit = (modified: boolean) => [
      { kind: 'hook', hook: 'refund-limit', action: 'require_approval', reason: 'refunds over 100 need approval', modified },
    ];
    expect(pending.map((request) => [request.toolName, request.args, request.requiredBy])).toEqual([
      ['refund', { order: 'B', amount: 150 }, byLimit(false)],
      ['refund', { order: 'D', amount: 1000 }, byLimit(true)],
    ]);
    await run.reject(pending[0]!.approvalId, { reason: 'B was refunded by phone', decidedBy: 'ops' });
    await run.approve(pending[1]!.approvalId, { decidedBy: 'ops' });
    const result = await run.result();

    expect(refunds).toEqual([
      { order: 'A', amount: 50 },
      { order: 'D', amount: 1000 },
    ]);
    const byOrder = Object.fromEntries(result.toolResults.map((toolResult, index) => [['A', 'B', 'C', 'D'][index], toolResult]));
    expect(byOrder.A!.metadata.decided_by).toBeUndefined();
    expect(byOrder.B).toMatchObject({
      isError: true,
      errorCode: 'ToolRejected',
      metadata: { approval_status: 'rejected', decided_by: byLimit(false) },
    });
    expect(byOrder.C).toMatchObject({
      isError: true,
      errorCode: ErrorCode.toolDenied,
      metadata: {
        status: 'denied',
        decided_by: [{ kind: 'hook', hook: 'refund-limit', action: 'deny', reason: 'a refund cannot be negative', modified: false }],
      },
    });
    expect(byOrder.C!.content).toBe(
      "Error: the call to 'refund' was denied by hook 'refund-limit': a refund cannot be negative. The tool did not run.",
    );
    expect(byOrder.D).toMatchObject({
      content: 'refunded 1000 for D',
      metadata: { approval_status: 'approved', approval_decided_by: 'ops', decided_by: byLimit(true) },
    });
    const decided = auditOf(run.workflowId).filter((entry) => entry.point === 'approval-decided');
    expect(decided.map((entry) => [entry.detail.outcome, entry.detail.requiredBy])).toEqual([
      ['rejected', byLimit(false)],
      ['approved', byLimit(true)],
    ]);
    // Asked once per call (in step 1's model step), never again while the run waited.
    expect(auditOf(run.workflowId).filter((entry) => entry.point === 'before-tool')).toHaveLength(4);
    await recordHistory('hooks-tool-decisions', run);
  });

  it('fails the call of a hook that throws under hook_errors: fail, naming the hook and its point', async () => {
    const run = await start('fragile', 'fragile');
    const result = await run.result();
    const [lookup, email] = result.toolResults;
    expect(lookup).toMatchObject({ isError: true, errorCode: ErrorCode.hookFailed });
    expect(lookup!.content).toBe(
      "Error: the result of 'lookup_customer' is withheld: hook 'fragile-results' (after-tool) failed: the redaction service is down",
    );
    expect(email).toMatchObject({
      isError: true,
      errorCode: ErrorCode.hookFailed,
      metadata: { status: 'error', decided_by: [expect.objectContaining({ kind: 'hook', hook: 'fragile-policy', action: 'fail' })] },
    });
    expect(email!.content).toBe(
      "Error: the call to 'send_email' did not run: hook 'fragile-policy' (before-tool) failed: the policy service timed out.",
    );
    const failed = (await eventsOf(run)).filter((event) => event.type === 'hook-failed');
    expect(failed).toEqual([
      expect.objectContaining({ hook: 'fragile-policy', point: 'before-tool', outcome: 'failed' }),
      expect.objectContaining({ hook: 'fragile-results', point: 'after-tool', outcome: 'failed', message: 'the redaction service is down' }),
    ]);
    await recordHistory('hooks-failing', run);
  });

  it('reports a hook that throws under hook_errors: ignore, and goes on without its change', async () => {
    const run = await start('fragile-lenient', 'fragile', { hook_errors: 'ignore' });
    const result = await run.result();
    expect(result.toolResults.map((toolResult) => [toolResult.content, toolResult.isError])).toEqual([
      ['customer 1: ann@example.com', false],
      ['sent to bob@example.com', false],
    ]);
    const failed = (await eventsOf(run)).filter((event) => event.type === 'hook-failed');
    expect(failed.map((event) => event.type === 'hook-failed' && [event.hook, event.point, event.outcome, event.message])).toEqual([
      ['fragile-policy', 'before-tool', 'ignored', 'the policy service timed out'],
      ['fragile-results', 'after-tool', 'ignored', 'the redaction service is down'],
    ]);
    await recordHistory('hooks-ignored', run);
  });

  it('fails the run whose start hook throws, with HookFailed naming the hook', async () => {
    const run = await start('fragile-start', 'lookup');
    const failure = await run.result().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe(ErrorCode.hookFailed);
    expect((cause as ApplicationFailure).message).toContain("hook 'quota-check' (run-start) failed: quota exceeded for this resource");
  });

  it('tells the handoff hooks, and the target agent ends the run', async () => {
    const run = await env.agents.startRun({
      config: { name: 'handoff-source', model: 'scripted:transfer', handoffs: ['handoff-target'] },
      agents: { 'handoff-target': { name: 'handoff-target', model: 'scripted:transfer' } },
      task: 'Please transfer me',
    });
    const result = await run.result();
    expect(result.output).toBe('The target answers.');
    const points = auditOf(run.workflowId).map((entry) => `${entry.agent}:${entry.point}`);
    expect(points).toEqual([
      'handoff-source:run-start',
      'handoff-source:before-model',
      'handoff-source:after-model',
      'handoff-source:handoff',
      'handoff-target:before-model',
      'handoff-target:after-model',
      'handoff-target:run-end',
    ]);
    expect(auditOf(run.workflowId)[3]!.detail).toMatchObject({ from: 'handoff-source', to: 'handoff-target', step: 1 });
    await recordHistory('hooks-handoff', run);
  });

  it('tells the error hooks of a failed tool, a failed model call and the failed run, then ends the run', async () => {
    const run = await start('failing', 'explode', { max_retries: 1 });
    await expect(run.result()).rejects.toThrow();
    const entries = auditOf(run.workflowId).filter((entry) => ['error', 'run-end'].includes(entry.point));
    expect(entries.map((entry) => [entry.point, entry.detail.where ?? entry.detail.stopReason, entry.detail.errorType ?? null])).toEqual([
      ['error', 'tool', ErrorCode.toolFailed],
      ['error', 'model', ErrorCode.modelAuthFailed],
      ['error', 'run', ErrorCode.modelAuthFailed],
      ['run-end', 'failed', null],
    ]);
    expect(entries.at(-1)!.detail.failure).toMatchObject({ type: ErrorCode.modelAuthFailed });
    await recordHistory('hooks-errors', run);
  });

  it('tells the turn hooks of each thread turn', async () => {
    const thread = env.agents.thread(`hooks-thread-${randomUUID().slice(0, 8)}`, {
      config: { name: 'support', model: 'scripted:chat' },
      resourceId: 'customer:9',
    });
    expect((await (await thread.send('first question')).result()).output).toBe('Hello first question');
    expect((await (await thread.send('second question')).result()).output).toBe('Again second question');
    const entries = auditOf(thread.threadId);
    expect(entries.map((entry) => entry.point)).toEqual([
      'turn-start',
      'before-model',
      'after-model',
      'turn-end',
      'turn-start',
      'before-model',
      'after-model',
      'turn-end',
    ]);
    expect(entries[0]!.detail).toMatchObject({ turn: 1, message: 'first question', threadId: thread.threadId, resourceId: 'customer:9' });
    expect(entries[7]!.detail).toMatchObject({ turn: 2, stopReason: 'completed', output: 'Again second question' });
    await thread.close();
    await recordHistory('hooks-thread', thread.run);
  });
});

describe('a recorded before-tool decision', () => {
  it('stands when the run replays on a worker whose hook now decides differently', async () => {
    refunds.length = 0;
    const taskQueue = `hooks-replay-${randomUUID()}`;
    const limit = hooks.find((hook) => hook.name === 'refund-limit')!;
    const first = await createTestEnvironment({ tools: shopTools, scripts, hooks: [limit], taskQueue });
    let run: RunHandle;
    try {
      run = await first.agents.startRun({ config: { name: 'refunds', model: 'scripted:single', tools: ['refund'] }, task: 'refund R' });
      await eventually(async () => ((await run.status()).pendingApprovals.length === 1 ? true : undefined));
    } finally {
      await first.close();
    }
    // The new worker denies every refund, and replays every workflow task from the history.
    let asked = 0;
    const denyAll = defineHook({
      name: 'refund-limit',
      point: 'before-tool',
      run: () => {
        asked++;
        return { action: 'deny', reason: 'refunds are paused' };
      },
    });
    const second = await createTestEnvironment({ tools: shopTools, scripts, hooks: [denyAll], taskQueue, workerOptions: { maxCachedWorkflows: 0 } });
    try {
      run = second.agents.getRun(run.workflowId);
      await run.approve('step-1.call-1', { decidedBy: 'ops' });
      const result = await run.result();
      expect(result.output).toBe('Refund: refunded 150 for R');
      expect(refunds).toEqual([{ order: 'R', amount: 150 }]);
      expect(asked).toBe(0);
      expect(result.toolResults[0]!.metadata.decided_by).toEqual([
        { kind: 'hook', hook: 'refund-limit', action: 'require_approval', reason: 'refunds over 100 need approval', modified: false },
      ]);
    } finally {
      await second.close();
    }
  });
});
