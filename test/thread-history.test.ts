import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { historyCommand } from '../src/cli/commands/history-command';
import { renderThreadTranscript } from '../src/history/thread-render';
import type { ToolEntry } from '../src/history/history-entries';
import { ErrorCode } from '../src/protocol/errors';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';
import { printed } from './support/printed';

const testTools = createTestTools();
let env: TestEnvironment;

/** Replies by the thread's step: turn 1 waits in the gate, then answers; turn 2 calls the gated add; turn 3 echoes. */
const scripts = {
  story: {
    replies: [
      { toolCalls: [{ name: 'gate', args: {} }] },
      { text: 'Answer 1: {{user}}' },
      { toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] },
      { text: 'Sum: {{tool:add}}' },
      { toolCalls: [{ name: 'echo', args: { text: 'said again' } }] },
      { text: 'Echo: {{tool:echo}}' },
    ],
  },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  await env?.close();
});

function tools(entries: Array<{ kind: string }>): ToolEntry[] {
  return entries.filter((entry): entry is ToolEntry => entry.kind === 'tool');
}

describe('history of a thread, turn by turn', () => {
  it('shows each turn with its messages (injected marked), tool calls, approvals and result, across continue-as-new', async () => {
    const thread = env.agents.thread(`thread-history-${randomUUID().slice(0, 8)}`, {
      config: { name: 'assistant', model: 'scripted:story', tools: ['gate', 'add', 'echo'], hitl_tools: ['add'] },
      historyEventLimit: 12,
    });
    const first = await thread.send('one');
    await testTools.gateControl.reached();
    const injected = await thread.send('also this', { policy: 'inject' });
    expect(injected.receipt).toMatchObject({ turn: 1, disposition: 'injected' });
    testTools.gateControl.open();
    expect((await first.result()).output).toBe('Answer 1: also this');

    const second = await thread.send('add two and three');
    for await (const event of second.events()) {
      if (event.type === 'approval-requested') await second.approve(event.request.approvalId, { decidedBy: 'alice' });
    }
    expect((await second.result()).output).toBe('Sum: 5');
    // Not awaited by anyone: the open thread's query gives its result.
    const third = await thread.send('echo it');
    await third.result();

    const history = await thread.history();
    expect(history.runIds.length).toBeGreaterThan(1);
    expect(history.turns.map((turn) => turn.turn)).toEqual([1, 2, 3]);
    const [one, two, three] = history.turns;
    expect(one!.messages).toEqual([
      { messageId: first.receipt.messageId, text: 'one', disposition: 'started' },
      { messageId: injected.receipt.messageId, text: 'also this', disposition: 'injected' },
    ]);
    expect(tools(one!.entries).map((entry) => entry.tool)).toEqual(['gate']);
    expect(one!.result).toMatchObject({ stopReason: 'completed', output: 'Answer 1: also this', firstStep: 1, lastStep: 2 });
    expect(two!.messages.map((message) => message.text)).toEqual(['add two and three']);
    expect(tools(two!.entries)).toEqual([
      expect.objectContaining({
        tool: 'add',
        result: expect.objectContaining({ content: '5', metadata: expect.objectContaining({ approval_status: 'approved' }) }),
      }),
    ]);
    // The decision itself, in the turn it belongs to.
    expect(two!.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'update', payload: expect.objectContaining({ decision: 'approve', decidedBy: 'alice' }) }),
      ]),
    );
    expect(two!.result).toMatchObject({ output: 'Sum: 5', firstStep: 3, lastStep: 4 });
    expect(two!.result!.usage.outputTokens).toBeGreaterThan(0);
    expect(tools(three!.entries).map((entry) => entry.tool)).toEqual(['echo']);
    expect(three!.result).toMatchObject({ output: 'Echo: said again', firstStep: 5, lastStep: 6 });
    // A turn cut by continue-as-new goes on in the next execution, under the same header.
    expect(history.turns.some((turn) => turn.entries.some((entry) => entry.kind === 'finished' && entry.status === 'continued as new'))).toBe(true);
    // Every model step is in its turn.
    const steps = history.turns.map((turn) =>
      turn.entries.filter((entry) => entry.kind === 'model').map((entry) => ('step' in entry ? entry.step : 0)),
    );
    expect(steps).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);

    const rendered = renderThreadTranscript(history);
    expect(rendered).toContain(`Thread ${thread.threadId}: 3 turn(s) in ${history.runIds.length} execution(s)`);
    expect(rendered).toContain('── Turn 1 (started) ──');
    expect(rendered).toContain('user (injected): also this');
    expect(rendered).toMatch(/⇒ completed · steps 3-4 \(2\) · \d+ in \/ \d+ out tokens/);
    expect(rendered).toContain('answer: Sum: 5');

    const onlyTwo = await printed(() => historyCommand(thread.threadId, { turn: '2' }, env.agents));
    expect(onlyTwo).toContain('── Turn 2 (started) ──');
    expect(onlyTwo).toContain('tool add({"a":2,"b":3})');
    expect(onlyTwo).not.toContain('── Turn 1');
    expect(onlyTwo).not.toContain('── Turn 3');
    await expect(historyCommand(thread.threadId, { turn: '9' }, env.agents)).rejects.toMatchObject({
      code: ErrorCode.agentConfigInvalid,
      problems: [expect.stringContaining('has turns 1, 2, 3, not 9')],
    });
    await expect(historyCommand(thread.threadId, { turn: 'x' }, env.agents)).rejects.toMatchObject({ code: ErrorCode.agentConfigInvalid });

    // Closed: the history alone (the answers recorded, the last turn in the result).
    await thread.close('done');
    await thread.run.workflow.result();
    const closed = await thread.history();
    expect(closed.turns.map((turn) => turn.result?.output)).toEqual(['Answer 1: also this', 'Sum: 5', 'Echo: said again']);
    const json = JSON.parse(await printed(() => historyCommand(thread.threadId, { json: true, turn: '3' }, env.agents))) as {
      turns: Array<{ turn: number }>;
    };
    expect(json.turns.map((turn) => turn.turn)).toEqual([3]);
  });
});
