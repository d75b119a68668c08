import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/** With no workflow cache every workflow task replays the whole history: determinism is exercised. */
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    scripts: {
      replaying: {
        replies: [
          {
            toolCalls: [
              { name: 'add', args: { a: 1, b: 2 } },
              { name: 'echo', args: { text: 'x' } },
            ],
          },
          { toolCalls: [{ name: 'no_such_tool', args: {} }] },
          { text: 'sum {{tool:add}}' },
        ],
      },
    },
    workerOptions: { maxCachedWorkflows: 0 },
  });
});

afterAll(async () => {
  await env?.close();
});

describe('agent run without a workflow cache', () => {
  it('completes with the same result when every workflow task replays', async () => {
    const run = await env.agents.startRun({ config: { name: 'replayer', model: 'scripted:replaying', tools: ['add', 'echo'] }, task: 'Go' });
    const result = await run.result();
    expect(result.output).toBe('sum 3');
    expect(result.toolResults.map((toolResult) => toolResult.isError)).toEqual([false, false, true]);
    expect((await run.status()).stopReason).toBe('completed');
  });
});
