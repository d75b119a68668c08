import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunHandle } from '../src/client/run-handle';
import type { RunEvent } from '../src/protocol/run-events';
import { conversationQuery } from '../src/protocol/run-messages';
import { ErrorCode } from '../src/protocol/errors';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Loop detection on a real dev server and worker: a scripted model that repeats a call is nudged
 * once (the model sees the notice), then stopped with `loop_detected` before the repeated call
 * runs again; a model that changes course after the nudge finishes; a thread's turns count apart.
 */

const testTools = createTestTools();
let env: TestEnvironment;

const same = { toolCalls: [{ name: 'echo', args: { text: 'same' } }] };
const NUDGE = '[loop detection]';

const scripts = {
  // Steps 1-3 repeat echo (the third is one over max_repeats 2: nudge); step 4 repeats it again.
  looping: { replies: [same, same, same, { ...same, expect: { lastMessageIncludes: NUDGE } }] },
  // Nudged at step 3, the model turns to another tool, then answers.
  recovering: { replies: [same, same, same, { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, { text: 'Sum is {{tool:add}}' }] },
  // A cycle of two calls: add, echo, add, echo, ... (nudged at step 6, stopped at step 7).
  cycling: {
    replies: Array.from({ length: 7 }, (_, index) => (index % 2 === 0 ? { toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] } : same)),
  },
  // Twelve identical calls, then an answer: the default threshold (10) nudges at step 11 and stops at step 12.
  defaultThreshold: { replies: [...Array.from({ length: 12 }, () => same), { text: 'gave up on the loop' }] },
  // Off: the same four calls run, then the answer.
  unwatched: { replies: [same, same, same, same, { text: 'done looping' }] },
  // Thread: turn 1 loops (steps 1-4, stopped); turn 2 calls echo twice more and answers (steps 5-7).
  threadLoop: { replies: [same, same, same, same, same, same, { text: 'Turn two: {{user}}' }] },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  await env?.close();
});

function config(model: keyof typeof scripts, extra: Record<string, unknown> = {}) {
  return { name: 'looper', model: `scripted:${model}`, tools: ['echo', 'add'], max_steps: 8, loop_detection: { max_repeats: 2 }, ...extra };
}

async function eventsOf(run: RunHandle): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

const echoRuns = () => testTools.executions.filter((execution) => execution.tool === 'echo').length;
const loopEvents = (events: RunEvent[]) => events.filter((event) => event.type === 'loop-detected');

describe('loop detection', () => {
  it('nudges a run that repeats a call, then stops it with loop_detected before the call runs again', async () => {
    const before = echoRuns();
    const run = await env.agents.startRun({ config: config('looping'), task: 'Echo forever' });
    const result = await run.result();
    await recordHistory('loop-stopped', run);

    expect(result).toMatchObject({ stopReason: 'loop_detected', steps: 4 });
    expect(result.stopDetail).toContain(`'echo' with the same arguments ({"text":"same"}) more than 2 times in a row`);
    // Steps 1-3 ran the tool; step 4's call did not run.
    expect(echoRuns() - before).toBe(3);
    // Steps 1-3's results, and step 4's call that did not run (an error result the run records).
    expect(result.toolResults).toHaveLength(4);
    expect(result.toolResults[3]).toMatchObject({ step: 4, toolName: 'echo', isError: true, errorCode: ErrorCode.loopStopped });
    // The model's step 4 saw the notice after step 3's result.
    const stepFour = env.modelCalls.filter((call) => call.modelId === 'looping').at(-1)!;
    expect(stepFour.request.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining(`${NUDGE} You have called 'echo'`) });
    expect(stepFour.request.messages.at(-2)).toMatchObject({ role: 'tool', content: 'same' });
    expect(loopEvents(await eventsOf(run))).toMatchObject([
      { step: 3, action: 'nudged', tools: ['echo'] },
      { step: 4, action: 'stopped', tools: ['echo'] },
    ]);
    // The stopped call has an error result, so the conversation stays well-formed for a fork or a thread.
    const conversation = await run.workflow.query(conversationQuery, { epoch: 0, from: 0, count: 1_000 });
    expect(conversation.messages.at(-1)).toMatchObject({
      role: 'tool',
      isError: true,
      content: expect.stringContaining('Not run: loop detection stopped the run'),
    });
    // `history` shows the nudge (before step 4's model call) and the stopped call's result, as text and as JSON.
    const transcript = await buildTranscript(env.client, run.workflowId);
    const stepFourModel = transcript.entries.find((entry) => entry.kind === 'model' && entry.step === 4);
    expect(stepFourModel).toMatchObject({ loopNudge: expect.stringContaining(`${NUDGE} You have called 'echo'`) });
    const stopped = transcript.entries.find((entry) => entry.kind === 'tool' && entry.step === 4);
    expect(stopped).toMatchObject({
      via: 'workflow',
      result: { isError: true, content: expect.stringContaining('Not run: loop detection stopped the run') },
    });
    const text = renderTranscript(transcript);
    expect(text).toContain('loop detection nudged the model');
    expect(text).toContain(NUDGE);
    expect(text).toContain('Not run: loop detection stopped the run');
  });

  it('lets a run that changes course after the nudge finish normally', async () => {
    const run = await env.agents.startRun({ config: config('recovering'), task: 'Echo, then add' });
    const result = await run.result();
    await recordHistory('loop-nudged', run);
    expect(result).toMatchObject({ stopReason: 'completed', output: 'Sum is 3', steps: 5 });
    expect(loopEvents(await eventsOf(run))).toMatchObject([{ step: 3, action: 'nudged', tools: ['echo'] }]);
  });

  it('finds a cycle of calls, and names the cycle when it stops the run', async () => {
    const run = await env.agents.startRun({ config: config('cycling'), task: 'Alternate' });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'loop_detected', steps: 7 });
    expect(result.stopDetail).toContain('the same 2 calls in turn (echo → add)');
    expect(loopEvents(await eventsOf(run))).toMatchObject([
      { step: 6, action: 'nudged', tools: ['add', 'echo'] },
      { step: 7, action: 'stopped', tools: ['echo', 'add'] },
    ]);
  });

  it('is on by default: the eleventh identical call in a row nudges, the twelfth stops', async () => {
    const run = await env.agents.startRun({
      config: { name: 'looper', model: 'scripted:defaultThreshold', tools: ['echo'], max_steps: 14 },
      task: 'Echo',
    });
    const result = await run.result();
    await recordHistory('loop-default-threshold', run);
    expect(result).toMatchObject({ stopReason: 'loop_detected', steps: 12 });
    expect(loopEvents(await eventsOf(run))).toMatchObject([
      { step: 11, action: 'nudged' },
      { step: 12, action: 'stopped' },
    ]);
  });

  it('does nothing with loop_detection: false', async () => {
    const before = echoRuns();
    const run = await env.agents.startRun({ config: config('unwatched', { loop_detection: false }), task: 'Echo' });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'completed', output: 'done looping', steps: 5 });
    expect(echoRuns() - before).toBe(4);
    expect(loopEvents(await eventsOf(run))).toEqual([]);
  });

  it('stops a thread turn that loops; the next turn counts its calls afresh', async () => {
    const thread = env.agents.thread(`thread-loop-${randomUUID().slice(0, 8)}`, { config: config('threadLoop') });
    const first = await (await thread.send('echo forever')).result();
    expect(first).toMatchObject({ turn: 1, stopReason: 'loop_detected', firstStep: 1, lastStep: 4 });
    expect(first.stopDetail).toContain(`'echo' with the same arguments`);
    // Two more echo calls would be a loop if turn 1's calls still counted (and the nudge was spent).
    const second = await (await thread.send('once more')).result();
    expect(second).toMatchObject({ turn: 2, stopReason: 'completed', output: 'Turn two: once more', firstStep: 5, lastStep: 7 });
    await recordHistory('thread-loop-stopped', thread.run);
    await thread.close();
  });
});
