import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { defineTool, RetryableToolError, type ToolContext } from '../src/tools/define-tool';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';

/**
 * A timeout (the worker died, or never answered) is an infrastructure failure: retried for as long
 * as the run lives, without using up `max_retries` or the tools' tries, which count only the
 * provider's and the tool's own failures.
 */

/** Executions of the `slow_then_flaky` tool: what each one saw. */
const executions: Array<Pick<ToolContext, 'attempt' | 'idempotencyKey' | 'callId'>> = [];

const slowThenFlaky = defineTool({
  name: 'slow_then_flaky',
  description: 'Hangs twice (its activity times out), fails retryably once, then answers.',
  parameters: z.object({}),
  execute: async (_args, context) => {
    executions.push({ attempt: context.attempt, idempotencyKey: context.idempotencyKey, callId: context.callId });
    if (context.attempt <= 2) await new Promise((resolve) => setTimeout(resolve, 4_000));
    if (context.attempt === 3) throw new RetryableToolError('the service is busy');
    return `done on attempt ${context.attempt}`;
  },
});

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: [slowThenFlaky],
    scripts: {
      // Three executions of step 1 outlive the step's 1 s timeout; the fourth answers.
      stalling: { replies: [{ text: 'answered at last', delayMs: 3_000, delayAttempts: 3 }] },
      toolCall: { replies: [{ toolCalls: [{ name: 'slow_then_flaky', args: {} }] }, { text: 'The tool said {{tool:slow_then_flaky}}.' }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

describe('infrastructure failures never use up a run’s retries', () => {
  it('retries a model step that timed out more times than max_retries, and completes', async () => {
    const run = await env.agents.startRun({
      config: { name: 'stalling', model: 'scripted:stalling', max_retries: 1 },
      task: 'Answer eventually',
      timeouts: { modelStepMs: 1_000 },
    });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'completed', output: 'answered at last', steps: 1 });
    const calls = env.modelCalls.filter((call) => call.modelId === 'stalling').map((call) => call.request.attempt);
    expect(calls).toEqual([1, 2, 3, 4]);
    await recordHistory('model-step-timeouts', run);
  }, 60_000);

  it('retries a timed-out tool without limit, a RetryableToolError within its tries, with one idempotency key and rising attempts', async () => {
    const run = await env.agents.startRun({
      config: { name: 'tooling', model: 'scripted:toolCall', tools: ['slow_then_flaky'] },
      task: 'Call the tool',
      timeouts: { toolMs: 1_500 },
    });
    const result = await run.result();
    expect(result.toolResults).toEqual([expect.objectContaining({ toolName: 'slow_then_flaky', content: 'done on attempt 4', isError: false })]);
    expect(result.output).toBe('The tool said done on attempt 4.');
    expect(executions.map((execution) => execution.attempt)).toEqual([1, 2, 3, 4]);
    const keys = new Set(executions.map((execution) => execution.idempotencyKey));
    expect(keys.size).toBe(1);
    const { runId } = await run.workflow.describe();
    expect([...keys][0]).toBe(`${run.workflowId}/${runId}/step-1.tool-1.slow_then_flaky`);
    // The RetryableToolError was retried by the workflow: a second activity, the same call.
    const scheduled = ((await run.workflow.fetchHistory()).events ?? [])
      .map((event) => event.activityTaskScheduledEventAttributes?.activityId)
      .filter((id): id is string => Boolean(id));
    expect(scheduled).toEqual(['step-1.model', 'step-1.tool-1.slow_then_flaky', 'step-1.tool-1.slow_then_flaky.try-2', 'step-2.model']);
    await recordHistory('tool-timeouts-and-retries', run);
  }, 60_000);
});
