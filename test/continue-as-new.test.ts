import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunEvent } from '../src/protocol/run-events';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const STEPS = 12;
const COMPACTING_STEPS = 16;
let env: TestEnvironment;

beforeAll(async () => {
  const replies = [
    ...Array.from({ length: STEPS - 1 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 1 } }] })),
    { text: 'last sum {{tool:add}}' },
  ];
  const compacting = {
    replies: [
      ...Array.from({ length: COMPACTING_STEPS - 1 }, () => ({ toolCalls: [{ name: 'bulk', args: { words: 150 } }] })),
      { text: 'read it all' },
    ],
    compaction: Array.from({ length: COMPACTING_STEPS }, (_, index) => ({ text: `Earlier: bulk calls up to number ${index + 1}.` })),
  };
  env = await createTestEnvironment({ tools: createTestTools().tools, scripts: { long: { replies }, compacting } });
});

afterAll(async () => {
  await env?.close();
});

describe('continue-as-new', () => {
  it('hands a long run to fresh runs that carry the conversation, counters and event numbering', async () => {
    const run = await env.agents.startRun({
      config: { name: 'marathon', model: 'scripted:long', tools: ['add'], max_steps: STEPS },
      task: 'Keep adding',
      historyEventLimit: 40,
    });
    const events: RunEvent[] = [];
    for await (const event of run.events()) events.push(event);
    const result = await run.result();
    expect(result.stopReason).toBe('completed');
    expect(result.steps).toBe(STEPS);
    expect(result.output).toBe(`last sum ${STEPS - 1}`);
    expect(result.toolResults.map((toolResult) => toolResult.step)).toEqual(Array.from({ length: STEPS - 1 }, (_, index) => index + 1));
    // The model saw the whole conversation in every run: step N sees N-1 earlier assistant messages.
    const calls = env.modelCalls.filter((call) => call.modelId === 'long');
    expect(calls.map((call) => call.request.messages.filter((message) => message.role === 'assistant').length)).toEqual(
      Array.from({ length: STEPS }, (_, index) => index),
    );
    const executions = await eventually(async () => {
      const { count } = await env.client.workflow.count(`WorkflowId = '${run.workflowId}'`);
      return count > 1 ? count : undefined;
    });
    expect(executions).toBeGreaterThan(1);
    const seqs = events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(events.filter((event) => event.type === 'run-started')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('run-completed');
  });

  it('continues a run several times with compactions in between, every step seeing the conversation whole (snapshots extend, and start afresh after a compaction)', async () => {
    const run = await env.agents.startRun({
      // The same bulk call at every step is what fills the context here, not a loop to stop.
      config: {
        name: 'compacting',
        model: 'scripted:compacting',
        tools: ['bulk'],
        max_steps: COMPACTING_STEPS,
        budget_awareness: 'limit:25',
        context_window: 2000,
        loop_detection: false,
      },
      task: 'Read a lot',
      historyEventLimit: 40,
    });
    const events: RunEvent[] = [];
    for await (const event of run.events()) events.push(event);
    expect((await run.result()).output).toBe('read it all');
    const compactions = events.filter((event) => event.type === 'context-compacted');
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const { count: executions } = await env.client.workflow.count(`WorkflowId = '${run.workflowId}'`);
    expect(executions).toBeGreaterThanOrEqual(3);
    // Between compactions each step sees the previous step's messages plus its call and result; a
    // compaction step starts from the task and a summary. Any message lost or repeated across a
    // continuation (a wrong segment or index) breaks this chain.
    const byStep = new Map(
      env.modelCalls
        .filter((call) => call.modelId === 'compacting' && (call.request.purpose ?? 'executor') === 'executor')
        .map((call) => [call.request.step, call]),
    );
    const calls = [...byStep.values()];
    expect(calls).toHaveLength(COMPACTING_STEPS);
    const compactedSteps = new Set(compactions.map((event) => (event as { step: number }).step));
    for (let index = 1; index < calls.length; index++) {
      const previous = calls[index - 1]!.request.messages;
      const current = calls[index]!.request.messages;
      if (current.length === previous.length + 2 && JSON.stringify(current.slice(0, previous.length)) === JSON.stringify(previous)) continue;
      // Otherwise this step followed a compaction: the task, the summary, then the turns it kept.
      expect(current[0]).toEqual(previous[0]);
      expect(current[1]).toMatchObject({ role: 'user', content: expect.stringContaining('Summary of the earlier part of this conversation') });
    }
    expect(compactedSteps.size).toBe(compactions.length);
  }, 240_000);
});
