import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { defineTool } from '../src/tools/define-tool';
import { historyBytesPerStep } from './support/history-bytes';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

const STEPS = 30;
const RESULT_SIZE = 4_000;

const bulky = defineTool({
  name: 'bulky',
  description: 'Returns a large block of text.',
  parameters: z.object({ step: z.number() }),
  execute: ({ step }) => `${step}:`.padEnd(RESULT_SIZE, 'x'),
});

let env: TestEnvironment;

beforeAll(async () => {
  const replies = [
    ...Array.from({ length: STEPS - 1 }, (_, index) => ({ text: 'Looking further.', toolCalls: [{ name: 'bulky', args: { step: index + 1 } }] })),
    { text: 'Done.' },
  ];
  env = await createTestEnvironment({ tools: [bulky], scripts: { long: { replies } } });
});

afterAll(async () => {
  await env?.close();
});

describe('history size', () => {
  it('adds the same number of bytes per step at step 5 and at step 25 while the conversation grows', async () => {
    const run = await env.agents.startRun({ config: { name: 'long', model: 'scripted:long', tools: ['bulky'], max_steps: STEPS }, task: 'Go' });
    const result = await run.result();
    expect(result.steps).toBe(STEPS);
    const history = await run.workflow.fetchHistory();
    const perStep = historyBytesPerStep(history.events ?? []);
    // By step 25 the conversation holds ~100 KB; had it been an activity input, step 25 would be that much bigger.
    const early = perStep.get(5) ?? 0;
    const late = perStep.get(25) ?? 0;
    expect(early).toBeGreaterThan(RESULT_SIZE);
    expect(Math.abs(late - early)).toBeLessThan(64);
    const total = temporal.api.history.v1.History.encode(history).finish().length;
    // Each step's own events (scheduled, started, completed, the workflow tasks between) cost about
    // 4 KB besides the result; 4.5 KB leaves room for small fields (a step's cost: ~20 bytes).
    expect(total).toBeLessThan(STEPS * (RESULT_SIZE + 4_500));
  });
});
