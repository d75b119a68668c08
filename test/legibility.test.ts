import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { advisoryText, withBudgetAdvisories } from '../src/budget/budget-advisory';
import { countMessageTokens, countPreambleTokens } from '../src/budget/token-counter';
import type { RunHandle } from '../src/client/agent-client';
import type { Message } from '../src/protocol/messages';
import { decideApprovalUpdate, eventsQuery, injectMessageUpdate } from '../src/protocol/run-messages';
import type { RunEvent } from '../src/protocol/run-events';
import { AgentStatusAttribute } from '../src/protocol/search-attributes';
import { WireName } from '../src/protocol/wire-names';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Runs that explain themselves where users look (issue 16): bad messages change nothing and say
 * why, refusals are typed, the run's status, details and timers say what it waits for, and each
 * tool result is reported when it is ready.
 */

const testTools = createTestTools();
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      gatedAndFree: {
        replies: [
          {
            toolCalls: [
              { name: 'add', args: { a: 1, b: 2 } },
              { name: 'echo', args: { text: 'free' } },
            ],
          },
          { text: 'Done: {{tool:add}}' },
        ],
      },
      rejected: { replies: [{ toolCalls: [{ name: 'add', args: { a: 5, b: 5 } }] }, { text: 'Refused.' }] },
      waitForMessages: { replies: [{ toolCalls: [{ name: 'add', args: { a: 0, b: 0 } }] }, { text: 'Heard you.' }] },
      ghostCall: { replies: [{ toolCalls: [{ name: 'ghost', args: {} }] }, { text: 'No ghost.' }] },
      authFails: { replies: [{ error: { code: 'ModelAuthFailed', message: 'invalid API key' } }] },
      longAdding: {
        replies: [
          ...Array.from({ length: 5 }, (_, index) => ({ toolCalls: [{ name: 'echo', args: { text: `round ${index + 1}` } }] })),
          { text: 'All rounds done.' },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

async function collectEvents(run: RunHandle): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

/** What the Web UI and `temporal workflow metadata` read: handler descriptions and current details. */
interface WorkflowMetadata {
  definition: Record<'queryDefinitions' | 'signalDefinitions' | 'updateDefinitions', Array<{ name: string; description?: string }>>;
  currentDetails: string;
}

function metadataOf(run: RunHandle): Promise<WorkflowMetadata> {
  return run.workflow.query<WorkflowMetadata>('__temporal_workflow_metadata');
}

/** The update's failure as the client gets it: its type, retryability, message and stack. */
async function updateFailure(send: () => Promise<unknown>): Promise<ApplicationFailure> {
  const error = await send().then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (error as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

describe('approvals that explain themselves', () => {
  it('ignores and records a wrongly typed decision, refuses one as a typed update, reports the free call at once, and records who decided and why', async () => {
    const run = await env.agents.startRun({
      config: { name: 'operator', model: 'scripted:gatedAndFree', tools: ['add', 'echo'], hitl_tools: ['add'] },
      task: 'Add, and echo meanwhile',
    });
    const pending = await eventually(async () => (await run.status()).pendingApprovals[0]);
    expect(pending.approvalId).toBe('step-1.call-1');
    const deadline = new Date(pending.expiresAt).toISOString();

    // The non-gated call of the same step reports its result while the approval waits.
    await eventually(async () => {
      const page = await run.workflow.query(eventsQuery, 0, 500);
      return page.events.some((event) => event.type === 'tool-completed' && event.toolName === 'echo');
    });
    expect((await run.status()).runningTools).toEqual([]);

    // The Web UI's run page: what the run waits for, with an ISO deadline.
    const details = (await metadataOf(run)).currentDetails;
    expect(details).toContain(`awaiting approval of add (step-1.call-1) until ${deadline}`);
    expect(details).toContain('step 1 of 10: tools');

    // A signal with wrongly typed fields settles nothing.
    await run.workflow.signal(WireName.approvalSignal, { approvalId: 'step-1.call-1', decision: 'reject', decidedBy: 42, reason: { x: 1 } });
    // An update with a wrong decision is refused: typed, not retryable, the reason only.
    const invalid = await updateFailure(() =>
      run.workflow.executeUpdate(decideApprovalUpdate, { args: [{ approvalId: 'step-1.call-1', decision: 'maybe' as 'approve' }] }),
    );
    expect(invalid).toMatchObject({ type: 'InvalidMessage', nonRetryable: true, message: 'decision: must be "approve" or "reject", not "maybe"' });
    expect(invalid.stack ?? '').not.toMatch(/src\/workflows|\.ts:\d+/);
    const unknown = await updateFailure(() =>
      run.workflow.executeUpdate(decideApprovalUpdate, { args: [{ approvalId: 'step-7.call-1', decision: 'approve' }] }),
    );
    expect(unknown).toMatchObject({ type: 'ApprovalRefused', nonRetryable: true });
    expect(unknown.message).toContain("no approval 'step-7.call-1'");
    expect((await run.status()).pendingApprovals).toHaveLength(1);

    await run.approve('step-1.call-1', { decidedBy: 'alice', reason: 'ticket 42' });
    const result = await run.result();
    expect(result.output).toBe('Done: 3');
    const add = result.toolResults.find((toolResult) => toolResult.toolName === 'add');
    expect(add?.metadata).toMatchObject({
      approval_status: 'approved',
      approval_id: 'step-1.call-1',
      approval_decided_by: 'alice',
      approval_reason: 'ticket 42',
    });

    const events = await collectEvents(run);
    expect(events.find((event) => event.type === 'approval-ignored')).toMatchObject({
      approvalId: 'step-1.call-1',
      reason: 'reason: must be a string, not {"x":1}',
    });
    const decided = events.filter((event) => event.type === 'approval-decided');
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({ outcome: 'approved', decidedBy: 'alice' });
    // echo's result came before the decision, not after the slowest call of the step.
    const echoDone = events.findIndex((event) => event.type === 'tool-completed' && event.toolName === 'echo');
    expect(echoDone).toBeLessThan(events.indexOf(decided[0]!));

    // The approval timer's summary names the tool, the approval id and the deadline.
    const history = await run.workflow.fetchHistory();
    const timer = history.events?.find((event) => event.timerStartedEventAttributes);
    const summary = timer?.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(timer.userMetadata.summary) : null;
    expect(summary).toBe(`awaiting approval of add (step-1.call-1) until ${deadline}`);
    await recordHistory('approval-validated', run);
  });

  it('records who rejected and why in the tool result', async () => {
    const run = await env.agents.startRun({
      config: { name: 'operator', model: 'scripted:rejected', tools: ['add'], hitl_tools: ['add'] },
      task: 'Add',
    });
    await eventually(async () => (await run.status()).pendingApprovals[0]);
    await run.reject('step-1.call-1', { reason: 'too much', decidedBy: 'bob' });
    const [add] = (await run.result()).toolResults;
    expect(add?.metadata).toMatchObject({ approval_status: 'rejected', approval_decided_by: 'bob', approval_reason: 'too much' });
  });
});

describe('injected messages and skills batches', () => {
  it('ignores and records an invalid injected message signal, and refuses empty or too long text as typed updates', async () => {
    const run = await env.agents.startRun({
      config: { name: 'listener', model: 'scripted:waitForMessages', tools: ['add'], hitl_tools: ['add'] },
      task: 'Listen',
    });
    await eventually(async () => (await run.status()).pendingApprovals[0]);
    await run.workflow.signal(WireName.injectMessageSignal, { text: 5 });
    await run.workflow.signal(WireName.skillsChangedSignal, { source: 'nowhere', version: 'two', changes: [] });
    const empty = await updateFailure(() => run.workflow.executeUpdate(injectMessageUpdate, { args: [{ text: '  ' }] }));
    expect(empty).toMatchObject({ type: 'EmptyMessage', nonRetryable: true });
    const long = await updateFailure(() => run.workflow.executeUpdate(injectMessageUpdate, { args: [{ text: 'x'.repeat(100_001) }] }));
    expect(long).toMatchObject({ type: 'InvalidMessage', message: 'text: must be at most 100,000 characters, not 100,001' });
    // The library maps each refusal to its typed error by the refusal's type, not its words.
    await expect(run.injectAndConfirm('x'.repeat(100_001))).rejects.toMatchObject({
      code: 'InvalidMessage',
      message: 'text: must be at most 100,000 characters, not 100,001',
    });
    await expect(run.injectAndConfirm('  ')).rejects.toMatchObject({ code: 'EmptyMessage' });
    expect(await run.injectAndConfirm('A valid one.')).toEqual({ queued: 1 });
    await run.approve('step-1.call-1');
    expect((await run.result()).output).toBe('Heard you.');
    const ignored = (await collectEvents(run)).filter((event) => event.type === 'signal-ignored');
    expect(ignored).toEqual([
      expect.objectContaining({ signal: 'injectMessage', reason: 'text: must be a string, not 5' }),
      expect.objectContaining({ signal: 'skillsChanged', reason: 'version: must be a positive integer, not "two"' }),
    ]);
    await recordHistory('signals-validated', run);
  });
});

describe('handler descriptions', () => {
  it('describes every signal, query and update of a run', async () => {
    const run = await env.agents.startRun({
      config: { name: 'listener', model: 'scripted:waitForMessages', tools: ['add'], hitl_tools: ['add'] },
      task: 'Listen',
    });
    await eventually(async () => (await run.status()).pendingApprovals[0]);
    const { definition } = await metadataOf(run);
    const described = (list: Array<{ name: string; description?: string }>) =>
      Object.fromEntries(list.filter((entry) => !entry.name.startsWith('__')).map((entry) => [entry.name, Boolean(entry.description)]));
    expect(described(definition.queryDefinitions)).toEqual({ status: true, events: true, conversation: true });
    expect(described(definition.signalDefinitions)).toEqual({ approval: true, injectMessage: true, skillsChanged: true });
    expect(described(definition.updateDefinitions)).toEqual({ decideApproval: true, injectMessageChecked: true });
    await run.approve('step-1.call-1');
    await run.result();
  });
});

describe('tools no worker has', () => {
  it("lists this agent's tools, not the worker's, and says the tool is unavailable", async () => {
    // startRun refuses such a config when the workers answer (worker-tool-check.test.ts); runs
    // started without the check (runAgent, --no-tool-check, a worker deployed since) still meet this.
    const run = await env.agents.startRun({
      config: { name: 'seeker', model: 'scripted:ghostCall', tools: ['echo', 'ghost'] },
      task: 'Call the ghost',
      checkWorkerTools: false,
    });
    const result = await run.result();
    const [ghost] = result.toolResults;
    expect(ghost).toMatchObject({ isError: true, errorCode: 'ToolNotFoundError' });
    expect(ghost?.content).toBe("Error: tool 'ghost' is not available: no worker of this run has it. Available tools: echo");
    expect(ghost?.content).not.toContain('explode');
    const events = await collectEvents(run);
    expect(events.filter((event) => event.type === 'tool-unavailable')).toEqual([expect.objectContaining({ toolName: 'ghost', step: 1 })]);
  });
});

describe('AgentStatus of closing executions', () => {
  it('marks a run that fails `failed`, with a run-failed event', async () => {
    const run = await env.agents.startRun({ config: { name: 'broken', model: 'scripted:authFails' }, task: 'Fail' });
    await expect(run.result()).rejects.toBeDefined();
    const attributes = (await run.workflow.describe()).typedSearchAttributes;
    expect(attributes.get(AgentStatusAttribute)).toBe('failed');
    const events = await collectEvents(run);
    expect(events.at(-1)).toMatchObject({ type: 'run-failed', step: 1, failureType: 'ModelAuthFailed' });
    expect((await run.status()).phase).toBe('failed');
    await recordHistory('status-on-close-failed', run);
  });

  it('marks an execution that continued as new `continued`, and the new one `running`', async () => {
    const run = await env.agents.startRun({
      config: { name: 'marathon', model: 'scripted:longAdding', tools: ['echo'], max_steps: 6 },
      task: 'Echo five rounds',
      historyEventLimit: 20,
    });
    expect((await run.result()).output).toBe('All rounds done.');
    const statuses = await eventually(async () => {
      const found: Array<{ runId: string; status: unknown; closeTime: number }> = [];
      for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) {
        found.push({
          runId: execution.runId,
          status: execution.typedSearchAttributes.get(AgentStatusAttribute),
          closeTime: execution.closeTime?.getTime() ?? 0,
        });
      }
      return found.length > 1 && found.every((execution) => execution.status !== 'running') ? found : undefined;
    });
    statuses.sort((a, b) => a.closeTime - b.closeTime);
    expect(statuses.map((execution) => execution.status)).toEqual([...statuses.slice(1).map(() => 'continued'), 'completed']);
    // Each new execution started as `running` (not the `continued` of the one before).
    for (const execution of statuses.slice(1)) {
      const history = await env.client.workflow.getHandle(run.workflowId, execution.runId).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields?.[AgentStatusAttribute.name];
      expect(started ? defaultPayloadConverter.fromPayload(started) : null).toBe('running');
    }
    await recordHistory('status-on-close-continued', run);
  });
});

describe('budget advisories', () => {
  it('count their own text: the tokens shown include the advisory', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Summarise the incident report, please.' },
      { role: 'assistant', content: 'Reading it now.', toolCalls: [] },
      { role: 'tool', toolCallId: 'call-1', toolName: 'echo', content: 'The database was down for 3 minutes.', isError: false },
    ];
    const advised = withBudgetAdvisories('You are helpful.', [], messages, 128_000);
    let used = countPreambleTokens('You are helpful.', []);
    advised.forEach((message, index) => {
      used += countMessageTokens(message);
      if (message.role === 'user') return;
      const shown = Number(/\[context budget: (\d+) tokens used/.exec(message.content)?.[1]);
      expect(Math.abs(shown - used)).toBeLessThanOrEqual(1);
      expect(message.content).toContain(advisoryText({ usedTokens: shown, contextWindow: 128_000 }));
      expect(message.content.startsWith(messages[index]!.content)).toBe(true);
    });
  });
});
