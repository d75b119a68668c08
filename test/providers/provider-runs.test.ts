import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { followRun } from '../../src/cli/commands/run-command';
import { AiSdkProvider } from '../../src/models/ai-sdk-provider';
import { followCollecting } from '../support/follow-run';
import { historyText } from '../support/history-bytes';
import { anthropicStream, openAiStream, startFakeProviderServer, type FakeProviderServer } from '../support/fake-provider-server';
import { createTestEnvironment, type TestEnvironment } from '../support/test-env';
import { createTestTools } from '../support/test-tools';
import { recordHistory } from '../support/history-recorder';

const CANARY = 'sk-canary-run-9f8e7d6c5b4a-never-in-history';
let server: FakeProviderServer;
let env: TestEnvironment;

beforeAll(async () => {
  server = await startFakeProviderServer();
  const baseUrl = `${server.baseUrl}/v1`;
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    providers: {
      openai: new AiSdkProvider('openai', { OPENAI_API_KEY: CANARY, OPENAI_BASE_URL: baseUrl }),
      anthropic: new AiSdkProvider('anthropic', { ANTHROPIC_API_KEY: CANARY, ANTHROPIC_BASE_URL: baseUrl }),
      'openai-compatible': new AiSdkProvider('openai-compatible', { OPENAI_COMPATIBLE_BASE_URL: baseUrl }),
    },
  });
});

afterAll(async () => {
  await env?.close();
  await server?.close();
});

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('agent runs against real provider implementations (wire formats on loopback)', () => {
  it('OpenAI: runs parallel tool calls, sums usage per model, honours retry-after, and never records the key', async () => {
    server.respond(
      { status: 429, body: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '2' } },
      openAiStream({
        toolCalls: [
          { id: 'call_a', name: 'add', args: { a: 2, b: 3 } },
          { id: 'call_b', name: 'echo', args: { text: 'hi' } },
        ],
        usage: [40, 10],
      }),
      openAiStream({ chunks: ['Five, ', 'and hi.'], usage: [60, 6] }),
    );
    const before = server.requests.length;
    const run = await env.agents.startRun({ config: { name: 'real', model: 'openai:gpt-4o-mini', tools: ['add', 'echo'] }, task: 'Add and echo' });
    const result = await run.result();
    expect(result.output).toBe('Five, and hi.');
    expect(result.toolResults.map((toolResult) => toolResult.content)).toEqual(['5', 'hi']);
    // Priced by the worker at the default table's gpt-4o-mini price ($0.15 / $0.60 per million).
    expect(result.usage.byModel).toEqual({ 'openai:gpt-4o-mini': { inputTokens: 100, outputTokens: 16, costUsd: 0.0000246 } });
    // The 429 was retried after the server's retry-after (2 s), not the default backoff (1 s).
    const [limited, retried] = server.requests.slice(before);
    expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(1_900);
    const secondCall = server.requests.at(-1)!.body;
    expect(secondCall.messages.slice(-2).map((message: { role: string; tool_call_id: string }) => [message.role, message.tool_call_id])).toEqual([
      ['tool', 'call_a'],
      ['tool', 'call_b'],
    ]);
    expect(await historyText(run)).not.toContain(CANARY);
    await recordHistory('provider-openai-tools', run);
  });

  it('Anthropic: a tool step, then a structured answer in the provider-native output format', async () => {
    const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false };
    server.respond(
      anthropicStream({ toolCalls: [{ id: 'toolu_a', name: 'add', args: { a: 20, b: 22 } }], usage: [30, 4] }),
      anthropicStream({ chunks: ['{"total":', '42}'], usage: [50, 3] }),
    );
    const run = await env.agents.startRun({
      config: { name: 'typed', model: 'anthropic:claude-sonnet-4-5', tools: ['add'], output_type: schema },
      task: 'Add 20 and 22',
    });
    const result = await run.result();
    expect(result.structuredOutput).toEqual({ total: 42 });
    expect(result.usage.byModel).toEqual({ 'anthropic:claude-sonnet-4-5': { inputTokens: 80, outputTokens: 7, costUsd: 0.000345 } });
    expect(server.requests.at(-1)!.body.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(server.requests.at(-1)!.body.messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_a', content: '42' });
    await recordHistory('provider-anthropic-structured', run);
  });

  it('sums usage per model when the planner and the executor use different providers', async () => {
    server.respond(
      anthropicStream({ chunks: ['1. Echo the word\n', '2. Answer'], usage: [25, 9] }),
      openAiStream({ toolCalls: [{ id: 'call_e', name: 'echo', args: { text: 'plan' } }], usage: [44, 5] }),
      openAiStream({ chunks: ['Echoed.'], usage: [70, 2] }),
    );
    const run = await env.agents.startRun({
      config: { name: 'mixed', model: 'openai:gpt-4o-mini', tools: ['echo'], planning_enabled: true, planning_model: 'anthropic:claude-sonnet-4-5' },
      task: 'Echo plan',
    });
    const result = await run.result();
    expect(result.plan?.text).toBe('1. Echo the word\n2. Answer');
    expect(result.usage.byModel).toEqual({
      'anthropic:claude-sonnet-4-5': { inputTokens: 25, outputTokens: 9, costUsd: 0.00021 },
      'openai:gpt-4o-mini': { inputTokens: 114, outputTokens: 7, costUsd: 0.0000213 },
    });
    expect(result.usage).toMatchObject({ inputTokens: 139, outputTokens: 16, costUsd: 0.0002313, unpricedCalls: 0 });
  });

  it('OpenAI-compatible server: a streamed tool step and answer, no key needed', async () => {
    const before = server.requests.length;
    server.respond(openAiStream({ toolCalls: [{ id: 'call_c', name: 'add', args: { a: 1, b: 1 } }] }), openAiStream({ chunks: ['Two.'] }));
    const run = await env.agents.startRun({ config: { name: 'local', model: 'openai-compatible:llama3.1', tools: ['add'] }, task: 'One plus one' });
    const result = await run.result();
    expect(result.output).toBe('Two.');
    // A self-hosted model has no default price: its calls are flagged, never priced at zero.
    expect(result.usage).toMatchObject({ costUsd: 0, unpricedCalls: 2 });
    const sent = server.requests.slice(before);
    expect(sent.map((request) => [request.url, request.body.model, request.body.stream, request.headers.authorization])).toEqual([
      ['/v1/chat/completions', 'llama3.1', true, undefined],
      ['/v1/chat/completions', 'llama3.1', true, undefined],
    ]);
  });

  it('streams the answer to the client while the step runs, through heartbeats, never into the history', async () => {
    server.respond(openAiStream({ chunks: ['The ', 'answer ', 'is ', 'forty', '-two.'], delayMs: 400 }));
    const run = await env.agents.startRun({ config: { name: 'streamer', model: 'openai:gpt-4o-mini' }, task: 'Answer slowly' });
    const { printed, texts: snapshots, result, finishedAt } = await followCollecting(run);
    expect(result.output).toBe('The answer is forty-two.');
    const texts = snapshots.map((snapshot) => snapshot.text);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    texts.slice(1).forEach((text, index) => expect(text.startsWith(texts[index]!)).toBe(true));
    expect(snapshots[0]!.seenAt).toBeLessThan(finishedAt - 500);
    expect(snapshots.every((snapshot) => snapshot.step === 1 && snapshot.purpose === 'executor')).toBe(true);
    expect(occurrences(printed, 'The answer is forty-two.')).toBe(1);
    const history = await historyText(run);
    expect(history).not.toContain('model-text');
    expect(history).not.toContain(CANARY);
  });

  it('shows a retried step once: the second attempt continues what the first one showed', async () => {
    server.respond(
      openAiStream({ chunks: ['Retried ', 'answer ', 'arrives ', 'whole.'], delayMs: 400, cutAfter: 4 }),
      openAiStream({ chunks: ['Retried ', 'answer ', 'arrives ', 'whole.'], delayMs: 300 }),
    );
    const run = await env.agents.startRun({ config: { name: 'retrier', model: 'openai:gpt-4o-mini' }, task: 'Answer twice' });
    const { printed, texts: snapshots, result } = await followCollecting(run);
    expect(result.output).toBe('Retried answer arrives whole.');
    expect(new Set(snapshots.map((snapshot) => snapshot.attempt))).toEqual(new Set([1, 2]));
    expect(occurrences(printed, 'Retried')).toBe(1);
    expect(printed).toContain('Retried answer arrives whole.');
    expect(printed).not.toContain('↻');
    await recordHistory('provider-stream-retried', run);
  });

  it.each([
    ['ModelAuthFailed', 401, { error: { message: 'Incorrect API key provided' } }],
    ['ModelBadRequest', 400, { error: { message: 'Invalid parameter', type: 'invalid_request_error' } }],
  ])('ends the run with a typed %s after one attempt (HTTP %i)', async (code, status, body) => {
    const before = server.requests.length;
    server.respond({ status, body });
    const run = await env.agents.startRun({ config: { name: 'failing', model: 'openai:gpt-4o-mini' }, task: 'Fail' });
    // Following a run that fails ends with its failure (it does not wait for a completion event).
    await expect(followRun(run, false, new PassThrough())).rejects.toMatchObject({ cause: { type: code } });
    expect(server.requests.length - before).toBe(1);
  });

  it('retries a server error after the backoff interval (1 s)', async () => {
    const before = server.requests.length;
    server.respond({ status: 503, body: { error: { message: 'overloaded' } } }, openAiStream({ chunks: ['Recovered.'] }));
    const recovered = await env.agents.startRun({ config: { name: 'flaky', model: 'openai:gpt-4o-mini' }, task: 'Try' });
    expect((await recovered.result()).output).toBe('Recovered.');
    const [failed, retried] = server.requests.slice(before);
    expect(retried!.at - failed!.at).toBeGreaterThanOrEqual(900);
  });

  it('retries a step that times out', async () => {
    const before = server.requests.length;
    server.respond(openAiStream({ chunks: ['Too ', 'slow ', 'to ', 'finish.'], delayMs: 1_000 }), openAiStream({ chunks: ['In time.'] }));
    const run = await env.agents.startRun({ config: { name: 'slow', model: 'openai:gpt-4o-mini' }, task: 'Hurry', timeouts: { modelStepMs: 1_500 } });
    expect((await run.result()).output).toBe('In time.');
    // The retry came after the 1.5 s start-to-close timeout (plus the 1 s backoff).
    const [timedOut, retried] = server.requests.slice(before);
    expect(server.requests.length - before).toBe(2);
    expect(retried!.at - timedOut!.at).toBeGreaterThanOrEqual(2_400);
  });

  it("makes a context-length error the run's stop reason", async () => {
    server.respond({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
    });
    const tooLong = await env.agents.startRun({ config: { name: 'long', model: 'anthropic:claude-sonnet-4-5' }, task: 'Too long' });
    const result = await tooLong.result();
    expect(result.stopReason).toBe('context_length_exceeded');
    expect(result.stopDetail).toContain('prompt is too long');
  });
});
