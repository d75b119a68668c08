import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { transientServerError, type RunHandle, type StartRunOptions } from '../src/client/agent-client';
import { describeRetries } from '../src/cli/commands/approval-commands';
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import type { RunEvent } from '../src/protocol/run-events';
import { recordHistory } from './support/history-recorder';
import { runCli } from './support/cli-process';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;

const deployTwice = {
  replies: [
    {
      toolCalls: [
        { name: 'echo', args: { text: 'deploy api', ui_request_id: 'req-7' } },
        { name: 'add', args: { a: 1, b: 1 } },
      ],
    },
    { text: 'Finished: {{tool:echo}} / {{tool:add}}' },
  ],
};

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      deployTwice,
      deployOnce: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'deploy api' } }] }, { text: 'Result: {{tool:echo}}' }] },
      twoSteps: {
        replies: [
          { toolCalls: [{ name: 'echo', args: { text: 'first' } }] },
          { toolCalls: [{ name: 'add', args: { a: 2, b: 2 } }] },
          { text: 'Both steps done.' },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

/** echo and add are "dangerous" here: both are gated. */
function gatedConfig(script: string, extra: Record<string, unknown> = {}): StartRunOptions['config'] {
  return {
    name: 'operator',
    model: `scripted:${script}`,
    tools: ['echo', 'add'],
    hitl_tools: ['echo', 'add'],
    injected_tool_args: { ui_request_id: 'Correlation id' },
    ...extra,
  };
}

async function waitForPending(run: RunHandle, count: number) {
  return eventually(async () => {
    const status = await run.status();
    return status.pendingApprovals.length === count ? status : undefined;
  });
}

async function collectEvents(run: RunHandle): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

function executionsOf(tool: string): number {
  return testTools.executions.filter((execution) => execution.tool === tool).length;
}

describe('human-in-the-loop approvals', () => {
  it('waits for approval, marks the run awaiting_approval, then runs the approved tool', async () => {
    const before = executionsOf('echo');
    const run = await env.agents.startRun({ config: gatedConfig('deployOnce'), task: 'Deploy' });
    const status = await waitForPending(run, 1);
    const [request] = status.pendingApprovals;
    expect(request).toMatchObject({ approvalId: 'step-1.call-1', toolName: 'echo', step: 1, args: { text: 'deploy api' } });
    expect(request!.expiresAt - request!.requestedAt).toBe(24 * 3_600_000);
    expect(executionsOf('echo')).toBe(before);
    await eventually(
      async () => (await env.client.workflow.count(`WorkflowId = '${run.workflowId}' AND AgentStatus = 'awaiting_approval'`)).count === 1,
    );

    const receipt = await run.approve('step-1.call-1', { reason: 'change ticket 42', decidedBy: 'alice' });
    expect(receipt).toEqual({ delivery: 'update', approvalId: 'step-1.call-1', outcome: 'approved' });
    const result = await run.result();
    expect(result.output).toBe('Result: deploy api');
    expect(result.toolResults[0]?.metadata).toMatchObject({ status: 'success', approval_status: 'approved', approval_id: 'step-1.call-1' });
    expect(executionsOf('echo')).toBe(before + 1);
    const events = await collectEvents(run);
    expect(events.find((event) => event.type === 'approval-decided')).toMatchObject({
      outcome: 'approved',
      decidedBy: 'alice',
      reason: 'change ticket 42',
    });
    await recordHistory('approval-approved', run);
  });

  it('decides two gated calls of one step independently: one approved, one rejected', async () => {
    const before = { echo: executionsOf('echo'), add: executionsOf('add') };
    const run = await env.agents.startRun({ config: gatedConfig('deployTwice'), task: 'Deploy' });
    const status = await waitForPending(run, 2);
    expect(status.pendingApprovals.map((request) => request.approvalId)).toEqual(['step-1.call-1', 'step-1.call-2']);
    expect(status.pendingApprovals[0]?.injectedArgs).toEqual({ ui_request_id: 'req-7' });
    await run.reject('step-1.call-2', { reason: 'not during the freeze', decidedBy: 'bob' });
    await run.approve('step-1.call-1', { decidedBy: 'alice' });
    const result = await run.result();
    const [echo, add] = result.toolResults;
    expect(echo?.metadata).toMatchObject({ status: 'success', approval_status: 'approved', injected_args: { ui_request_id: 'req-7' } });
    expect(add).toMatchObject({ isError: true, errorCode: 'ToolRejected' });
    expect(add?.content).toContain('rejected by bob: not during the freeze');
    expect(add?.metadata).toMatchObject({ status: 'rejected', approval_status: 'rejected', approval_id: 'step-1.call-2' });
    expect(result.output).toContain("Finished: deploy api / Error: the call to 'add' was rejected by bob");
    expect(executionsOf('echo')).toBe(before.echo + 1);
    expect(executionsOf('add')).toBe(before.add);
    await recordHistory('approval-mixed', run);
  });

  it('times out an undecided call: the model sees a timed_out error and the tool never runs', async () => {
    const before = executionsOf('echo');
    const run = await env.agents.startRun({ config: gatedConfig('deployOnce', { hitl_timeout: '1s' }), task: 'Deploy' });
    const result = await run.result();
    expect(result.toolResults[0]).toMatchObject({ isError: true, errorCode: 'ApprovalTimedOut' });
    expect(result.toolResults[0]?.metadata).toMatchObject({ status: 'timed_out', approval_status: 'timed_out', approval_id: 'step-1.call-1' });
    expect(result.output).toContain('not approved within 1s (timed out)');
    expect(executionsOf('echo')).toBe(before);
    await recordHistory('approval-timed-out', run);
  });

  it('ignores an unknown id and a second decision, recording each, and the update refuses them', async () => {
    const run = await env.agents.startRun({ config: gatedConfig('deployTwice', { hitl_timeout: '3s' }), task: 'Deploy' });
    await waitForPending(run, 2);
    await run.workflow.signal('approval', { approvalId: 'step-9.call-9', decision: 'approve' });
    await run.workflow.signal('approval', { approvalId: 'step-1.call-1', decision: 'reject', reason: 'no', decidedBy: 'carol' });
    await run.workflow.signal('approval', { approvalId: 'step-1.call-1', decision: 'approve', decidedBy: 'mallory' });
    await expect(run.approve('step-1.call-1')).rejects.toMatchObject({
      code: 'ApprovalRefused',
      message: expect.stringContaining('already rejected by carol'),
    });
    await expect(run.approve('nope')).rejects.toMatchObject({ code: 'ApprovalRefused', message: expect.stringContaining("no approval 'nope'") });
    const result = await run.result();
    expect(result.toolResults.map((toolResult) => toolResult.metadata.approval_status)).toEqual(['rejected', 'timed_out']);
    const events = await collectEvents(run);
    const ignored = events.filter((event) => event.type === 'approval-ignored');
    expect(ignored.map((event) => event.type === 'approval-ignored' && event.approvalId)).toEqual(['step-9.call-9', 'step-1.call-1']);
    expect(events.filter((event) => event.type === 'approval-decided').map((event) => event.type === 'approval-decided' && event.outcome)).toEqual([
      'rejected',
      'timed_out',
    ]);
    await recordHistory('approval-ignored', run);
  });

  it('ignores a decision that arrives after its timeout, while the run waits on a later approval', async () => {
    const run = await env.agents.startRun({ config: gatedConfig('twoSteps', { hitl_timeout: '2s' }), task: 'Deploy' });
    await eventually(async () => ((await run.status()).pendingApprovals[0]?.approvalId === 'step-2.call-1' ? true : undefined), 20_000);
    await run.workflow.signal('approval', { approvalId: 'step-1.call-1', decision: 'approve', decidedBy: 'late-larry' });
    await run.approve('step-2.call-1', { decidedBy: 'alice' });
    const result = await run.result();
    expect(result.toolResults.map((toolResult) => toolResult.metadata.approval_status)).toEqual(['timed_out', 'approved']);
    const events = await collectEvents(run);
    expect(events.find((event) => event.type === 'approval-ignored')).toMatchObject({
      approvalId: 'step-1.call-1',
      reason: expect.stringContaining('already timed_out'),
    });
    await recordHistory('approval-late-decision', run);
  });

  it('accepts an approval sent with the Temporal CLI binary itself', async () => {
    const run = await env.agents.startRun({ config: gatedConfig('deployOnce'), task: 'Deploy' });
    await waitForPending(run, 1);
    const target = resolveTemporalTarget();
    const temporal = await findOrBuildTemporalCli();
    await promisify(execFile)(temporal, [
      'workflow',
      'signal',
      '--address',
      target.address,
      '--namespace',
      target.namespace,
      '--workflow-id',
      run.workflowId,
      '--name',
      'approval',
      '--input',
      JSON.stringify({ approvalId: 'step-1.call-1', decision: 'approve', reason: 'via temporal CLI', decidedBy: 'ops-bot' }),
    ]);
    const result = await run.result();
    expect(result.toolResults[0]?.metadata.approval_status).toBe('approved');
    const events = await collectEvents(run);
    // A plain Temporal signal names no door.
    expect(events.find((event) => event.type === 'approval-decided')).toMatchObject({ decidedBy: 'ops-bot', reason: 'via temporal CLI', via: null });
  });

  it('lists pending approvals and approves from our CLI', async () => {
    const run = await env.agents.startRun({ config: gatedConfig('deployOnce'), task: 'Deploy' });
    await waitForPending(run, 1);
    await eventually(
      async () => (await env.client.workflow.count(`WorkflowId = '${run.workflowId}' AND AgentStatus = 'awaiting_approval'`)).count === 1,
    );
    const listed = await runCli(['approvals']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${run.workflowId}\\s+step-1\\.call-1\\s+echo\\s+\\{"text":"deploy api"\\}`));
    const refused = await runCli(['approve', run.workflowId, 'step-4.call-1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("no approval 'step-4.call-1'");
    const approved = await runCli(['approve', run.workflowId, 'step-1.call-1', '--reason', 'ok', '--by', 'dana']);
    expect(approved.stdout).toContain('step-1.call-1 in ' + run.workflowId + ': approved.');
    expect((await run.result()).toolResults[0]?.metadata.approval_status).toBe('approved');
    // The run records the door the decision came through.
    expect((await collectEvents(run)).find((event) => event.type === 'approval-decided')).toMatchObject({ decidedBy: 'dana', via: 'cli' });
  });
});

describe('decisions around server restarts', () => {
  it('retries unavailable, busy and timed-out servers and workflow tasks being retried, and nothing else', () => {
    const grpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
    expect(transientServerError(new Error('wrapped', { cause: grpcError(14, 'UNAVAILABLE: No connection established') }))).toBe('server unavailable');
    expect(transientServerError(grpcError(8, 'RESOURCE_EXHAUSTED: Workflow is busy.'))).toBe('server busy');
    expect(transientServerError(grpcError(4, 'DEADLINE_EXCEEDED'))).toBe('deadline exceeded');
    expect(transientServerError(grpcError(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.'))).toBe(
      'workflow task being retried',
    );
    expect(transientServerError(grpcError(9, 'FAILED_PRECONDITION: something else'))).toBeNull();
    expect(transientServerError(grpcError(5, 'NOT_FOUND: workflow not found'))).toBeNull();
    expect(transientServerError(new Error("no approval 'x' in this run"))).toBeNull();
  });

  it('says what the CLI retried', () => {
    expect(describeRetries({ count: 3, elapsedMs: 4_200, reasons: ['server unavailable', 'server unavailable', 'server busy'] })).toBe(
      'server busy, retried 3 times in 4s (server unavailable ×2, server busy).',
    );
    expect(describeRetries({ count: 1, elapsedMs: 800, reasons: ['server busy'] })).toBe('server busy, retried once in 800ms (server busy).');
  });
});
