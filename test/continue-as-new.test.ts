import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunEvent } from '../src/protocol/run-events';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const STEPS = 12;
let env: TestEnvironment;

beforeAll(async () => {
  const replies = [
    ...Array.from({ length: STEPS - 1 }, (_, index) => ({ toolCalls: [{ name: 'add', args: { a: index, b: 1 } }] })),
    { text: 'last sum {{tool:add}}' },
  ];
  env = await createTestEnvironment({ tools: createTestTools().tools, scripts: { long: { replies } } });
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
    expect(calls.map((call) => call.request.messages.filter((message) => message.role === 'assistant').length)).toEqual(Array.from({ length: STEPS }, (_, index) => index));
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
});
