import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AiSdkProvider } from '../../../src/models/ai-sdk-provider';
import type { ModelError, ModelRequest } from '../../../src/models/model-provider';
import {
  anthropicReply,
  anthropicStream,
  openAiReply,
  openAiStream,
  startFakeProviderServer,
  type FakeProviderServer,
} from '../../support/fake-provider-server';

const CANARY = 'sk-canary-0123456789-never-log-me';
let server: FakeProviderServer;

beforeAll(async () => {
  server = await startFakeProviderServer();
});

afterAll(async () => {
  await server?.close();
});

const addTool = {
  name: 'add',
  description: 'Adds',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    modelId: 'test-model',
    system: 'Be exact.',
    messages: [
      { role: 'user', content: 'What is 1 + 2 and 3 + 4?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_0', name: 'add', args: { a: 0, b: 0 } }] },
      { role: 'tool', toolCallId: 'call_0', toolName: 'add', content: 'Error: try again', isError: true },
    ],
    tools: [addTool],
    temperature: 0.3,
    maxTokens: 256,
    outputSchema: null,
    attempt: 1,
    ...overrides,
  };
}

const openai = () => new AiSdkProvider('openai', { OPENAI_API_KEY: CANARY, OPENAI_BASE_URL: `${server.baseUrl}/v1` });
const anthropic = () => new AiSdkProvider('anthropic', { ANTHROPIC_API_KEY: CANARY, ANTHROPIC_BASE_URL: `${server.baseUrl}/v1` });

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    return error as ModelError;
  }
  throw new Error('expected a failure');
}

describe('OpenAI (Chat Completions wire format, loopback server)', () => {
  it('maps messages, tool schemas, parallel tool calls and usage both ways', async () => {
    server.respond(
      openAiReply({
        toolCalls: [
          { id: 'call_1', name: 'add', args: { a: 1, b: 2 } },
          { id: 'call_2', name: 'add', args: { a: 3, b: 4 } },
        ],
        usage: [21, 9],
      }),
    );
    const response = await openai().complete(request());
    expect(response).toEqual({
      text: '',
      toolCalls: [
        { id: 'call_1', name: 'add', args: { a: 1, b: 2 } },
        { id: 'call_2', name: 'add', args: { a: 3, b: 4 } },
      ],
      usage: { inputTokens: 21, outputTokens: 9 },
    });
    const sent = server.requests.at(-1)!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(sent.body).toMatchObject({ model: 'test-model', temperature: 0.3, max_tokens: 256 });
    expect(sent.body.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(sent.body.messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_0', content: 'Error: try again' });
    expect(sent.body.tools).toEqual([{ type: 'function', function: { name: 'add', description: 'Adds', parameters: addTool.parameters } }]);
  });

  it.each([
    ['ModelRateLimited', 429, { error: { message: 'Rate limit reached', type: 'requests' } }, { 'retry-after': '2' }, true, 2000],
    ['ModelServerError', 500, { error: { message: 'upstream failure' } }, {}, true, undefined],
    ['ModelAuthFailed', 401, { error: { message: 'Incorrect API key provided' } }, {}, false, undefined],
    ['ModelBadRequest', 400, { error: { message: 'Invalid parameter', type: 'invalid_request_error' } }, {}, false, undefined],
    [
      'ContextLengthExceeded',
      400,
      { error: { message: "This model's maximum context length is 128000 tokens", code: 'context_length_exceeded' } },
      {},
      false,
      undefined,
    ],
  ])('classifies %s (HTTP %i)', async (code, status, body, headers, retryable, retryAfterMs) => {
    server.respond({ status, body, headers });
    const error = await failure(openai().complete(request()));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.retryAfterMs).toBe(retryAfterMs);
    expect(error.message).not.toContain(CANARY);
  });

  it('names the missing variable when there is no API key, without calling the server', async () => {
    const before = server.requests.length;
    const error = await failure(new AiSdkProvider('openai', {}).complete(request()));
    expect(error.code).toBe('MissingApiKey');
    expect(error.message).toBe("OPENAI_API_KEY is not set in the worker's environment");
    expect(server.requests.length).toBe(before);
  });
});

describe('Anthropic (Messages wire format, loopback server)', () => {
  it('maps messages, tool schemas, parallel tool calls and usage both ways', async () => {
    server.respond(
      anthropicReply({
        text: 'Adding both.',
        toolCalls: [
          { id: 'toolu_1', name: 'add', args: { a: 1, b: 2 } },
          { id: 'toolu_2', name: 'add', args: { a: 3, b: 4 } },
        ],
        usage: [30, 12],
      }),
    );
    const response = await anthropic().complete(request());
    expect(response).toEqual({
      text: 'Adding both.',
      toolCalls: [
        { id: 'toolu_1', name: 'add', args: { a: 1, b: 2 } },
        { id: 'toolu_2', name: 'add', args: { a: 3, b: 4 } },
      ],
      usage: { inputTokens: 30, outputTokens: 12 },
    });
    const sent = server.requests.at(-1)!;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(CANARY);
    expect(sent.body).toMatchObject({ model: 'test-model', max_tokens: 256, temperature: 0.3 });
    expect(sent.body.system).toEqual([{ type: 'text', text: 'Be exact.' }]);
    const toolResult = sent.body.messages[2].content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'call_0', is_error: true });
    expect(sent.body.tools).toEqual([
      expect.objectContaining({ name: 'add', input_schema: expect.objectContaining({ properties: addTool.parameters.properties }) }),
    ]);
  });

  it('classifies a prompt that is too long as ContextLengthExceeded', async () => {
    server.respond({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
    });
    const error = await failure(anthropic().complete(request()));
    expect(error.code).toBe('ContextLengthExceeded');
    expect(error.message).not.toContain(CANARY);
  });
});

describe('streaming (server-sent events from the loopback server)', () => {
  const streamingRequest = (deltas: string[], overrides: Partial<ModelRequest> = {}) =>
    request({ onTextDelta: (delta) => deltas.push(delta), ...overrides });

  it.each([
    ['OpenAI', openai, openAiStream, '/v1/chat/completions'],
    ['Anthropic', anthropic, anthropicStream, '/v1/messages'],
  ] as const)('%s: passes text deltas on in order and maps tool calls and usage', async (_name, provider, stream, url) => {
    server.respond(
      stream({
        chunks: ['Adding ', 'both', '.'],
        toolCalls: [
          { id: 'call_s1', name: 'add', args: { a: 1, b: 2 } },
          { id: 'call_s2', name: 'add', args: { a: 3, b: 4 } },
        ],
        usage: [17, 8],
      }),
    );
    const deltas: string[] = [];
    const response = await provider().complete(streamingRequest(deltas));
    expect(deltas).toEqual(['Adding ', 'both', '.']);
    expect(response).toEqual({
      text: 'Adding both.',
      toolCalls: [
        { id: 'call_s1', name: 'add', args: { a: 1, b: 2 } },
        { id: 'call_s2', name: 'add', args: { a: 3, b: 4 } },
      ],
      usage: { inputTokens: 17, outputTokens: 8 },
    });
    const sent = server.requests.at(-1)!;
    expect(sent.url).toBe(url);
    expect(sent.body.stream).toBe(true);
  });

  it('classifies a rate limit answered before the stream starts, with its retry-after', async () => {
    server.respond({ status: 429, body: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '3' } });
    const error = await failure(openai().complete(streamingRequest([])));
    expect([error.code, error.retryable, error.retryAfterMs]).toEqual(['ModelRateLimited', true, 3000]);
  });

  it('makes a connection dropped mid-stream a retryable server error', async () => {
    server.respond(openAiStream({ chunks: ['The answer', ' is', ' 42.'], delayMs: 30, cutAfter: 2 }));
    const deltas: string[] = [];
    const error = await failure(openai().complete(streamingRequest(deltas)));
    expect([error.code, error.retryable]).toEqual(['ModelServerError', true]);
    expect(deltas).toEqual(['The answer']);
  });

  it('does not stream when the worker turns streaming off (AGENT_MODEL_STREAMING=off)', async () => {
    server.respond(openAiReply({ text: 'Whole.' }));
    const deltas: string[] = [];
    const provider = new AiSdkProvider('openai', { OPENAI_API_KEY: CANARY, OPENAI_BASE_URL: `${server.baseUrl}/v1`, AGENT_MODEL_STREAMING: 'off' });
    expect((await provider.complete(streamingRequest(deltas))).text).toBe('Whole.');
    expect(deltas).toEqual([]);
    expect(server.requests.at(-1)!.body.stream).toBeUndefined();
  });
});

describe('structured output, provider-native', () => {
  const strictSchema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };
  const laxSchema = { type: 'object', properties: { answer: { type: 'number' }, note: { type: 'string' } }, required: ['answer'] };

  it.each([
    ['strict-compatible', strictSchema, true],
    ['not strict-compatible', laxSchema, false],
  ])('OpenAI: sends a %s schema as response_format json_schema (strict: %s)', async (_kind, schema, strict) => {
    server.respond(openAiReply({ text: '{"answer":3}' }));
    const response = await openai().complete(request({ outputSchema: schema }));
    expect(response.text).toBe('{"answer":3}');
    expect(server.requests.at(-1)!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema, strict } });
  });

  it('Anthropic: sends the schema as its output format', async () => {
    server.respond(anthropicReply({ text: '{"answer":3}' }));
    const response = await anthropic().complete(request({ modelId: 'claude-sonnet-4-5', outputSchema: strictSchema }));
    expect(response.text).toBe('{"answer":3}');
    expect(server.requests.at(-1)!.body.output_config).toEqual({ format: { type: 'json_schema', schema: strictSchema } });
  });

  it('OpenAI-compatible: sends json_schema when the worker opts in, and needs no API key', async () => {
    server.respond(openAiReply({ text: '{"answer":3}' }));
    const provider = new AiSdkProvider('openai-compatible', {
      OPENAI_COMPATIBLE_BASE_URL: `${server.baseUrl}/v1`,
      OPENAI_COMPATIBLE_STRUCTURED_OUTPUTS: 'on',
    });
    expect((await provider.complete(request({ outputSchema: strictSchema }))).text).toBe('{"answer":3}');
    const sent = server.requests.at(-1)!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: strictSchema } });
  });

  it('OpenAI-compatible: names the missing base URL variable', async () => {
    const error = await failure(new AiSdkProvider('openai-compatible', {}).complete(request()));
    expect(error.message).toBe("OPENAI_COMPATIBLE_BASE_URL is not set in the worker's environment");
  });
});
