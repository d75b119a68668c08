// Forks that edit the origin's conversation (a tool result, a message) on a real dev server: what the next step sees, history, refusals.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyForkEdits } from '../src/activities/fork-edit-application';
import type { ForkEditRequest } from '../src/client/fork-edits';
import { transcriptEntries } from '../src/console/pages/transcript-view';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import { AgentRuntimeError, ErrorCode } from '../src/protocol/errors';
import type { ForkEdit } from '../src/protocol/fork-types';
import type { RunEvent } from '../src/protocol/run-events';
import { AgentForkOfAttribute } from '../src/protocol/search-attributes';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(`${process.env.AGENT_TEST_SCRATCH ?? '/tmp'}/fork-edit-`);
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      // Step 1 adds (3), step 2 echoes (hello), step 3 answers.
      origin: {
        replies: [
          { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
          { toolCalls: [{ name: 'echo', args: { text: 'hello' } }] },
          { text: 'origin answer: {{tool:add}}' },
        ],
      },
      // The fork's step 3 quotes the results it was given: the edited ones.
      sawEdits: {
        replies: [
          { text: 'unused' },
          { text: 'unused' },
          { text: 'fork saw {{tool:echo}} and {{tool:add}}', expect: { lastMessageIncludes: 'the tool had returned this' } },
        ],
      },
      afterMessageEdits: { replies: [{ text: 'unused' }, { text: 'answered after the edits: {{tool:add}}' }] },
      // Its echo call waits for an approval (hitl_tools) that never comes.
      gatedOrigin: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'deploy' } }] }, { text: 'unused: the origin waits' }] },
      afterPending: { replies: [{ text: 'unused' }, { text: 'after the wait: {{tool:echo}}', expect: { lastMessageIncludes: 'deployed by hand' } }] },
      afterReplyEdit: { replies: [{ text: 'unused' }, { text: 'unused' }, { text: 'answered after the reply edit' }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const executionsOf = (tool: string) => testTools.executions.filter((execution) => execution.tool === tool).length;
const forksOf = async (origin: string) => (await env.client.workflow.count(`${AgentForkOfAttribute.name} = '${origin}'`)).count;

async function originRun(): Promise<string> {
  const run = await env.agents.startRun({ config: { name: 'origin', model: 'scripted:origin', tools: ['add', 'echo'] }, task: 'Add and echo' });
  expect((await run.result()).output).toBe('origin answer: 3');
  return run.workflowId;
}

async function refusal(promise: Promise<unknown>): Promise<AgentRuntimeError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AgentRuntimeError);
  return error as AgentRuntimeError;
}

describe('a fork that edits', () => {
  it('replaces tool results (by step and tool, and by call id at an earlier step): the next step sees them, no tool runs again, history shows each edit', async () => {
    const origin = await originRun();
    const addCall = (await buildTranscript(env.client, origin)).entries.find((entry) => entry.kind === 'tool' && entry.tool === 'add');
    const addCallId = addCall?.kind === 'tool' ? addCall.callId : '';
    const before = { add: executionsOf('add'), echo: executionsOf('echo') };
    const fork = await env.agents.fork(origin, {
      fromStep: 2,
      model: 'scripted:sawEdits',
      edits: [
        { toolResult: { step: 2, tool: 'echo' }, content: 'what if the tool had returned this' },
        { toolResult: { callId: addCallId }, content: { sum: 42 } },
      ],
    });
    const result = await fork.result();
    expect(result.output).toBe('fork saw what if the tool had returned this and {"sum":42}');
    expect({ add: executionsOf('add'), echo: executionsOf('echo') }).toEqual(before);
    // The fork's only model call: the origin's conversation with both results replaced, the replies kept.
    const call = env.modelCalls.find((candidate) => candidate.modelId === 'sawEdits')!;
    expect(call.request.step).toBe(3);
    expect(call.request.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Add and echo'],
      ['assistant', ''],
      ['tool', '{"sum":42}'],
      ['assistant', ''],
      ['tool', 'what if the tool had returned this'],
    ]);

    // In the fork's input (its history's first event), its first event, its Web UI summary and memo.
    const description = await fork.workflow.describe();
    expect(await description.staticSummary()).toContain(`edited fork (2 edits) of ${origin} after step 2`);
    expect(await description.staticDetails()).toContain('the result of echo');
    expect(description.memo).toEqual({ forkEdits: 2 });
    const events: RunEvent[] = [];
    for await (const event of fork.events()) events.push(event);
    expect(events[0]).toMatchObject({
      type: 'run-forked',
      step: 2,
      edits: [
        { kind: 'tool-result', step: 2 },
        { kind: 'tool-result', step: 1 },
      ],
    });
    const transcript = await buildTranscript(env.client, fork.workflowId);
    expect(transcript.entries[0]).toMatchObject({
      kind: 'started',
      forkOf: {
        workflowId: origin,
        step: 2,
        edits: [
          { kind: 'tool-result', step: 2, tool: 'echo', recorded: 'hello', content: 'what if the tool had returned this', isError: false },
          { kind: 'tool-result', step: 1, tool: 'add', callId: addCallId, recorded: '3', content: '{"sum":42}' },
        ],
      },
    });

    // The web console's transcript marks each edit (the recorded text, then the replacement; escaped).
    const page = (await transcriptEntries(fork.workflowId, transcript.entries)).toString();
    expect(page).toContain('Step 2 · edited: the result of echo');
    expect(page).toContain('<pre>hello</pre><pre>what if the tool had returned this</pre>');
    expect(page).toContain('<pre>{&quot;sum&quot;:42}</pre>');

    // `history` of the fork, text and JSON; the origin's lists the fork with its edits.
    const text = await runCli(['history', fork.workflowId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`step 2 · edited: the result of echo`);
    expect(text.stdout).toContain('recorded: hello');
    expect(text.stdout).toContain('replaced by: what if the tool had returned this');
    expect(text.stdout).toContain(`step 1 · edited: the result of add (${addCallId})`);
    const json = JSON.parse((await runCli(['history', fork.workflowId, '--json'])).stdout) as { entries: Array<{ forkOf?: { edits?: ForkEdit[] } }> };
    expect(json.entries[0]!.forkOf?.edits?.map((edit) => edit.recorded)).toEqual(['hello', '3']);
    const listed = await eventually(async () => {
      const originHistory = await runCli(['history', origin]);
      return originHistory.stdout.includes(`${fork.workflowId} (after step 2, 2 edits`) ? originHistory.stdout : undefined;
    }, 30_000);
    expect(listed).toContain(`Forks of ${origin}:`);
    await recordHistory('fork-edited-tool-result', fork);
  });

  it('edits the user message of step 1 from a file and makes a result an error (CLI), and edits the text of a reply', async () => {
    const origin = await originRun();
    writeFileSync(path.join(folder, 'question.txt'), 'Add two and two instead');
    const cli = await runCli(
      [
        'fork',
        origin,
        '--from-step',
        '1',
        '--model',
        'scripted:afterMessageEdits',
        '--edit-message',
        '1:user=@question.txt',
        '--edit-tool-error',
        '1:add=the adder is offline',
        '--follow',
        '--json',
        '--task-queue',
        env.taskQueue,
      ],
      {},
      folder,
    );
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      forkOf: origin,
      fromStep: 1,
      result: { output: 'answered after the edits: the adder is offline' },
    });
    const call = env.modelCalls.find((candidate) => candidate.modelId === 'afterMessageEdits')!;
    expect(call.request.messages[0]).toMatchObject({ role: 'user', content: 'Add two and two instead' });
    expect(call.request.messages[2]).toMatchObject({ role: 'tool', content: 'the adder is offline', isError: true });

    const replyEdited = await env.agents.fork(origin, {
      fromStep: 2,
      model: 'scripted:afterReplyEdit',
      edits: [{ message: { step: 2, role: 'assistant' }, content: 'Echoing the greeting now.' }],
    });
    expect((await replyEdited.result()).output).toBe('answered after the reply edit');
    const replyCall = env.modelCalls.find((candidate) => candidate.modelId === 'afterReplyEdit')!;
    // The reply's text changed; its tool call (and so its result) stayed.
    expect(replyCall.request.messages[3]).toMatchObject({
      role: 'assistant',
      content: 'Echoing the greeting now.',
      toolCalls: [{ name: 'echo', args: { text: 'hello' } }],
    });
    expect(replyCall.request.messages[4]).toMatchObject({ role: 'tool', content: 'hello' });
    const rendered = renderTranscript(await buildTranscript(env.client, replyEdited.workflowId));
    expect(rendered).toContain("step 2 · edited: the model's reply text of step 2");
    expect(rendered).toContain('replaced by: Echoing the greeting now.');
  });

  it('forks between a reply and its tool calls: a step whose call waits for an approval, given its result', async () => {
    const origin = await env.agents.startRun({
      config: { name: 'gated', model: 'scripted:gatedOrigin', tools: ['echo'], hitl_tools: ['echo'] },
      task: 'Deploy',
    });
    try {
      await eventually(async () => ((await origin.status()).pendingApprovals.length === 1 ? true : undefined));
      const echoes = executionsOf('echo');
      const unanswered = await refusal(env.agents.fork(origin.workflowId, { fromStep: 1 }));
      expect(unanswered.code).toBe(ErrorCode.forkRefused);
      expect(unanswered.message).toContain('0 of its 1 tool calls have a result');
      expect(unanswered.message).toContain('--edit-tool-result');
      const fork = await env.agents.fork(origin.workflowId, {
        fromStep: 1,
        model: 'scripted:afterPending',
        edits: [{ toolResult: { step: 1, tool: 'echo' }, content: 'deployed by hand' }],
      });
      expect((await fork.result()).output).toBe('after the wait: deployed by hand');
      expect(executionsOf('echo')).toBe(echoes);
      const call = env.modelCalls.find((candidate) => candidate.modelId === 'afterPending')!;
      expect(call.request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
      const rendered = renderTranscript(await buildTranscript(env.client, fork.workflowId));
      expect(rendered).toContain('recorded: (none: the call had no result yet)');
      expect(rendered).toContain('replaced by: deployed by hand');
      // The origin still waits for its approval: the fork changed nothing of it.
      expect((await origin.status()).pendingApprovals).toHaveLength(1);
      await recordHistory('fork-between-reply-and-calls', fork);
    } finally {
      await origin.workflow.terminate('the test is done with it');
    }
  });

  it('refuses an edit that does not fit the origin, naming the field, before anything starts (CLI exit 2)', async () => {
    const origin = await originRun();
    const edited = (edits: ForkEditRequest[], fromStep = 2) => refusal(env.agents.fork(origin, { fromStep, edits }));
    const cases: Array<[Promise<AgentRuntimeError>, string[]]> = [
      [edited([{ toolResult: { step: 3, tool: 'echo' }, content: 'x' }]), ['edits[0].toolResult.step', 'step 3 is after step 2']],
      [edited([{ toolResult: { callId: 'no-such-call' }, content: 'x' }]), ['edits[0].toolResult.callId', "no tool call 'no-such-call'"]],
      [edited([{ toolResult: { step: 2, tool: 'add' }, content: 'x' }]), ['edits[0].toolResult.tool', "made no call of 'add'", 'it called echo']],
      [edited([{ toolResult: { step: 2, tool: 'echo', index: 2 }, content: 'x' }]), ['edits[0].toolResult.index', 'there is no #2']],
      [edited([{ message: { step: 2, role: 'user' }, content: 'x' }]), ['edits[0].message.role', 'step 2 answered no user message']],
      [edited([{ message: { step: 1, role: 'user' }, content: '  ' }]), ['edits[0].content', 'must not be empty']],
      [edited([{ message: { step: 3, role: 'assistant' }, content: 'x' }], 3), ['edits[0]', 'final answer', '--task']],
      [edited([{ toolResult: { step: 0, tool: 'echo' }, content: 'x' }]), ['edits[0].toolResult.step', 'from 1']],
      [
        edited([
          { toolResult: { step: 2, tool: 'echo' }, content: 'x' },
          { toolResult: { step: 2, tool: 'echo' }, content: 'y' },
        ]),
        ['edits[1]', 'as does edits[0]'],
      ],
      [edited([{ toolResult: { step: 2, tool: 'echo' }, content: 'x'.repeat(300_000) }]), ['edits:', 'at most 256000']],
    ];
    for (const [promise, fragments] of cases) {
      const error = await promise;
      expect(error.code).toBe(ErrorCode.forkEditInvalid);
      for (const fragment of fragments) expect(error.message).toContain(fragment);
    }
    const flags: Array<[string[], string]> = [
      [['--edit-tool-result', '2:echo#3=x'], 'edits[0].toolResult.index'],
      [['--edit-message', '2=x'], '--edit-message: expected <step>:<user|assistant>=<text>'],
      [['--edit-tool-result', 'nothing'], '--edit-tool-result: expected'],
      [['--edit-message', '1:user=@no-such-file.txt'], '--edit-message: cannot read the file'],
    ];
    for (const [args, fragment] of flags) {
      const cli = await runCli(['fork', origin, '--from-step', '2', ...args, '--task-queue', env.taskQueue]);
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain(fragment);
    }
    expect(await forksOf(origin)).toBe(0);
  });

  it('fails an edit whose message is not the one it expects rather than editing another (the activity checks)', () => {
    const messages = [
      { role: 'user' as const, content: 'task' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'add', args: {} }] },
      { role: 'tool' as const, toolCallId: 'c1', toolName: 'add', content: '3', isError: false },
    ];
    const result: ForkEdit = { kind: 'tool-result', step: 1, index: 1, callId: 'c1', tool: 'add', content: '4', isError: false, recorded: '3' };
    expect(applyForkEdits(messages, [result])[2]).toMatchObject({ content: '4' });
    expect(messages[2]!.content).toBe('3');
    const failure = (edit: ForkEdit) => {
      try {
        applyForkEdits(messages, [edit]);
        return null;
      } catch (error) {
        return error as { type?: string; message: string; nonRetryable?: boolean };
      }
    };
    expect(failure({ ...result, callId: 'c2' })).toMatchObject({ type: ErrorCode.forkEditInvalid, nonRetryable: true });
    expect(failure({ kind: 'message', step: 1, index: 1, role: 'user', content: 'x', recorded: null })?.message).toContain('message 1 of the origin');
  });
});
