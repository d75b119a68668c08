import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';
import type { RunEvent } from '../src/protocol/run-events';
import type { AgentRunResult } from '../src/protocol/run-types';
import type { StartRunOptions } from '../src/client/agent-client';
import { recordHistory } from './support/history-recorder';

const testTools = createTestTools();
let env: TestEnvironment;

const scripts = {
  parallel: {
    replies: [
      {
        toolCalls: [
          { name: 'add', args: { a: 2, b: 3 } },
          { name: 'echo', args: { text: 'hello' } },
        ],
      },
      { toolCalls: [{ name: 'add', args: { a: 5, b: 10 } }] },
      { text: 'The sums are {{tool:add}}.' },
    ],
  },
  badInput: {
    replies: [
      {
        toolCalls: [
          { name: 'no_such_tool', args: {} },
          { name: 'add', args: { a: 'two', b: 3 } },
          { name: 'explode', args: {} },
          { name: 'noop', args: {} },
        ],
      },
      { text: 'I saw three errors.' },
    ],
  },
  structured: {
    replies: [{ text: 'not json at all' }, { text: '```json\n{"city": "Tokyo", "celsius": 14}\n```' }],
  },
  structuredNever: { replies: [{ text: '{"city": 3}' }, { text: '{"celsius": "warm"}' }] },
  endless: { replies: Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'noop', args: {} }] })) },
  contextLength: {
    replies: [
      { toolCalls: [{ name: 'noop', args: {} }] },
      { error: { code: 'ContextLengthExceeded' as const, message: 'prompt is too long: 210000 tokens > 200000' } },
    ],
  },
  transient: { replies: [{ text: 'third time lucky', error: { code: 'ModelServerError' as const, attempts: 2 } }] },
  authFailure: { replies: [{ error: { code: 'ModelAuthFailed' as const, message: 'invalid x-api-key' } }] },
  flakyTool: { replies: [{ toolCalls: [{ name: 'flaky', args: {} }] }, { text: 'done' }] },
};

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  await env?.close();
});

/** Starts a run, waits for its result, and records its history when asked (npm run record-histories). */
async function completeRun(historyName: string, options: StartRunOptions): Promise<AgentRunResult> {
  const run = await env.agents.startRun(options);
  const result = await run.result();
  await recordHistory(historyName, run);
  return result;
}

function config(model: string, extra: Record<string, unknown> = {}) {
  return { name: 'tester', model: `scripted:${model}`, tools: ['add', 'echo', 'explode', 'noop', 'flaky'], ...extra };
}

describe('agent run workflow', () => {
  it('runs parallel tool calls as activities over several steps and returns the final answer', async () => {
    const result = await completeRun('parallel', { config: config('parallel'), task: 'Add things up' });
    expect(result.stopReason).toBe('completed');
    expect(result.steps).toBe(3);
    expect(result.output).toBe('The sums are 15.');
    expect(result.toolResults.map((toolResult) => [toolResult.toolName, toolResult.content, toolResult.step])).toEqual([
      ['add', '5', 1],
      ['echo', 'hello', 1],
      ['add', '15', 2],
    ]);
    for (const toolResult of result.toolResults) {
      expect(toolResult.metadata.status).toBe('success');
      expect(toolResult.metadata.approval_status).toBe('not_required');
      expect(toolResult.metadata.completed_at).toBeGreaterThanOrEqual(toolResult.metadata.started_at);
    }
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(Object.keys(result.usage.byModel)).toEqual(['scripted:parallel']);
  });

  it('runs the tool calls of one step concurrently', async () => {
    const history = await (async () => {
      const run = await env.agents.startRun({ config: config('parallel'), task: 'Add things up' });
      await run.result();
      return run.workflow.fetchHistory();
    })();
    // Both tool activities of step 1 are scheduled in one workflow task, before either completes.
    const kinds = (history.events ?? [])
      .map((event) =>
        event.activityTaskScheduledEventAttributes
          ? `scheduled:${event.activityTaskScheduledEventAttributes.activityId}`
          : event.activityTaskCompletedEventAttributes
            ? 'completed'
            : null,
      )
      .filter(Boolean);
    const firstToolCompletion = kinds.indexOf('completed', kinds.indexOf('scheduled:step-1.tool-1.add'));
    expect(kinds.indexOf('scheduled:step-1.tool-2.echo')).toBeLessThan(firstToolCompletion);
  });

  it('turns an unknown tool, invalid arguments and a throwing tool into error results the model sees', async () => {
    const callsBefore = env.modelCalls.length;
    const result = await completeRun('bad-input', { config: config('badInput'), task: 'Break things' });
    expect(result.stopReason).toBe('completed');
    expect(result.toolResults.map((toolResult) => [toolResult.toolName, toolResult.isError, toolResult.errorCode ?? null])).toEqual([
      ['no_such_tool', true, 'ToolNotFoundError'],
      ['add', true, 'ToolArgumentsInvalid'],
      ['explode', true, 'ToolFailed'],
      ['noop', false, null],
    ]);
    expect(result.toolResults[1]?.content).toContain('a:');
    expect(result.toolResults[2]?.content).toContain('the fuse was lit');
    const secondCall = env.modelCalls.slice(callsBefore).find((call) => call.replyIndex === 1);
    const toolMessages = secondCall?.request.messages.filter((message) => message.role === 'tool') ?? [];
    expect(toolMessages.map((message) => message.role === 'tool' && message.isError)).toEqual([true, true, true, false]);
  });

  it('validates structured output and asks the model again when it does not match', async () => {
    const outputType = {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' } },
      required: ['city', 'celsius'],
    };
    const result = await completeRun('structured-corrected', { config: config('structured', { output_type: outputType }), task: 'Weather as JSON' });
    expect(result.stopReason).toBe('completed');
    expect(result.structuredOutput).toEqual({ city: 'Tokyo', celsius: 14 });
    expect(result.steps).toBe(2);
  });

  it('stops with output_invalid when the last step still fails the output schema', async () => {
    const outputType = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] };
    const result = await completeRun('structured-invalid', {
      config: config('structuredNever', { output_type: outputType, max_steps: 2 }),
      task: 'Weather as JSON',
    });
    expect(result.stopReason).toBe('output_invalid');
    expect(result.structuredOutput).toBeUndefined();
    expect(result.stopDetail).toContain('celsius');
  });

  it('stops at max_steps with a normal result', async () => {
    const result = await completeRun('max-steps', { config: config('endless', { max_steps: 3 }), task: 'Loop' });
    expect(result.stopReason).toBe('max_steps');
    expect(result.steps).toBe(3);
    expect(result.toolResults).toHaveLength(3);
  });

  it('ends the run with stop reason context_length_exceeded, without retrying the step', async () => {
    const callsBefore = env.modelCalls.length;
    const result = await completeRun('context-length', { config: config('contextLength'), task: 'Too much' });
    expect(result.stopReason).toBe('context_length_exceeded');
    expect(result.stopDetail).toContain('prompt is too long');
    expect(env.modelCalls.slice(callsBefore).filter((call) => call.replyIndex === 1)).toHaveLength(1);
  });

  it('retries a transient model failure as the activity retry policy (3 attempts by default)', async () => {
    const callsBefore = env.modelCalls.length;
    const result = await completeRun('model-retry', { config: config('transient'), task: 'Try' });
    expect(result.output).toBe('third time lucky');
    expect(env.modelCalls.length - callsBefore).toBe(3);
  });

  it('fails the run with the error code when the model rejects the credentials', async () => {
    const error = await (async () => {
      const run = await env.agents.startRun({ config: config('authFailure'), task: 'Try' });
      return run.result().catch((failure: unknown) => failure);
    })();
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('ModelAuthFailed');
  });

  it('retries a tool that raises RetryableToolError and gives the model its result', async () => {
    const result = await completeRun('tool-retry', { config: config('flakyTool'), task: 'Try' });
    expect(result.toolResults[0]?.content).toBe('recovered');
    expect(testTools.executions.filter((execution) => execution.tool === 'flaky')).toHaveLength(3);
  });

  it('answers the status query and streams typed events until the run completes', async () => {
    const { events, status } = await (async () => {
      const run = await env.agents.startRun({ config: config('parallel'), task: 'Add things up' });
      const collected: RunEvent[] = [];
      for await (const event of run.events()) collected.push(event);
      return { events: collected, status: await run.status() };
    })();
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('run-started');
    expect(types.at(-1)).toBe('run-completed');
    expect(types.filter((type) => type === 'tool-completed')).toHaveLength(3);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(status).toMatchObject({ phase: 'completed', step: 3, stopReason: 'completed', activeTools: ['add', 'echo', 'explode', 'noop', 'flaky'] });
  });
});
