import http from 'node:http';

/**
 * A loopback HTTP server that speaks a provider's wire format from a script: each request gets the
 * next scripted response (status, JSON body, headers). Every request is recorded so tests can
 * assert on what the provider sent. No network beyond 127.0.0.1.
 */
export interface ScriptedResponse {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Answer this long after the request arrived (a slow model call). */
  delayMs?: number;
  /** Answer only once this settles (then `delayMs` later): a call the test holds until it has seen what it checks. */
  holdUntil?: Promise<unknown>;
  /** Server-sent events instead of a JSON body, written `delayMs` apart. */
  stream?: { events: string[]; delayMs?: number; /** Drop the connection after this many events. */ cutAfter?: number };
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * A provider's rate limit, enforced as providers do: at most `requests` in any `windowMs` (a
 * sliding window); a request over it gets 429 with `retry-after-ms` and `retry-after` (seconds,
 * rounded up) saying when the oldest request of the window leaves it. Refused requests do not count.
 */
export interface EnforcedLimit {
  requests: number;
  windowMs: number;
}

export interface FakeProviderServerOptions {
  limit?: EnforcedLimit;
  /** The reply to a request the script has no response left for (default: a 500 saying so). */
  reply?: (body: any) => ScriptedResponse;
}

export interface FakeProviderServer {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Requests answered 429 by the enforced limit. */
  rateLimited: RecordedRequest[];
  /** Requests being answered right now, and the most at once so far (a test may reset `max`). */
  inFlight: { now: number; max: number };
  respond(...responses: ScriptedResponse[]): void;
  close(): Promise<void>;
}

export async function startFakeProviderServer(options: FakeProviderServerOptions = {}): Promise<FakeProviderServer> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const rateLimited: RecordedRequest[] = [];
  const admitted: number[] = [];
  const inFlight = { now: 0, max: 0 };
  const overLimit = (now: number): ScriptedResponse | null => {
    const limit = options.limit;
    if (!limit) return null;
    while (admitted.length > 0 && admitted[0]! <= now - limit.windowMs) admitted.shift();
    if (admitted.length < limit.requests) {
      admitted.push(now);
      return null;
    }
    const waitMs = admitted[0]! + limit.windowMs - now;
    return {
      status: 429,
      headers: { 'retry-after-ms': String(waitMs), 'retry-after': String(Math.ceil(waitMs / 1000)) },
      body: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
    };
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: text ? JSON.parse(text) : null,
        at: Date.now(),
      };
      requests.push(recorded);
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      // Counted until answered or dropped (a killed worker's connection closes).
      response.once('close', () => void inFlight.now--);
      const refusal = overLimit(recorded.at);
      if (refusal) rateLimited.push(recorded);
      const next = refusal ??
        queue.shift() ??
        options.reply?.(recorded.body) ?? { status: 500, body: { error: { message: 'the fake server has no scripted response left' } } };
      const answer = () => {
        if (next.stream) {
          void writeStream(response, next.stream);
          return;
        }
        if (response.destroyed) return;
        response.writeHead(next.status ?? 200, { 'content-type': 'application/json', ...next.headers });
        response.end(JSON.stringify(next.body));
      };
      const delayed = () => (next.delayMs ? void setTimeout(answer, next.delayMs).unref() : answer());
      if (next.holdUntil) void next.holdUntil.then(delayed, delayed);
      else delayed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    rateLimited,
    inFlight,
    respond: (...responses) => void queue.push(...responses),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // keep-alive sockets would hold the test process open
      }),
  };
}

async function writeStream(response: http.ServerResponse, stream: NonNullable<ScriptedResponse['stream']>): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [index, event] of stream.events.entries()) {
    if (response.destroyed) return; // the client gave up (a timed-out or cancelled step)
    if (stream.cutAfter !== undefined && index >= stream.cutAfter) {
      response.socket?.destroy();
      return;
    }
    response.write(event);
    if (stream.delayMs) await new Promise((resolve) => setTimeout(resolve, stream.delayMs));
  }
  response.end();
}

type StreamOptions = {
  chunks?: string[];
  toolCalls?: Array<{ id: string; name: string; args: unknown }>;
  usage?: [number, number];
  delayMs?: number;
  cutAfter?: number;
};

/** An OpenAI Chat Completions reply as a stream of chunks (text in `chunks`, then tool calls, then usage). */
export function openAiStream(options: StreamOptions): ScriptedResponse {
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-stream', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices, ...extra })}\n\n`;
  const toolCalls = options.toolCalls ?? [];
  const events = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    ...(options.chunks ?? []).map((text) => chunk([{ index: 0, delta: { content: text }, finish_reason: null }])),
    ...toolCalls.map((call, index) =>
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] },
          finish_reason: null,
        },
      ]),
    ),
    chunk([{ index: 0, delta: {}, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }]),
    chunk([], {
      usage: {
        prompt_tokens: options.usage?.[0] ?? 11,
        completion_tokens: options.usage?.[1] ?? 7,
        total_tokens: (options.usage?.[0] ?? 11) + (options.usage?.[1] ?? 7),
      },
    }),
    'data: [DONE]\n\n',
  ];
  return { stream: { events, delayMs: options.delayMs, cutAfter: options.cutAfter } };
}

/** An Anthropic Messages reply as a stream of events (text in `chunks`, then tool uses). */
export function anthropicStream(options: StreamOptions): ScriptedResponse {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const toolCalls = options.toolCalls ?? [];
  const chunks = options.chunks ?? [];
  const textBlocks = chunks.length > 0 ? 1 : 0;
  const events = [
    event('message_start', {
      message: {
        id: 'msg_stream',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-20250514',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: options.usage?.[0] ?? 13, output_tokens: 1 },
      },
    }),
    ...(textBlocks
      ? [
          event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
          ...chunks.map((text) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
          event('content_block_stop', { index: 0 }),
        ]
      : []),
    ...toolCalls.flatMap((call, offset) => [
      event('content_block_start', { index: textBlocks + offset, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }),
      event('content_block_delta', { index: textBlocks + offset, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.args) } }),
      event('content_block_stop', { index: textBlocks + offset }),
    ]),
    event('message_delta', {
      delta: { stop_reason: toolCalls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: options.usage?.[1] ?? 5 },
    }),
    event('message_stop', {}),
  ];
  return { stream: { events, delayMs: options.delayMs, cutAfter: options.cutAfter } };
}

/** An OpenAI Chat Completions reply. */
export function openAiReply(options: {
  text?: string | null;
  toolCalls?: Array<{ id: string; name: string; args: unknown }>;
  usage?: [number, number];
}): ScriptedResponse {
  const toolCalls = options.toolCalls ?? [];
  return {
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: options.text ?? null,
            ...(toolCalls.length > 0
              ? {
                  tool_calls: toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: JSON.stringify(call.args) },
                  })),
                }
              : {}),
          },
          finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: options.usage?.[0] ?? 11,
        completion_tokens: options.usage?.[1] ?? 7,
        total_tokens: (options.usage?.[0] ?? 11) + (options.usage?.[1] ?? 7),
      },
    },
  };
}

/** An Anthropic Messages reply. */
export function anthropicReply(options: {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; args: unknown }>;
  usage?: [number, number];
}): ScriptedResponse {
  const toolCalls = options.toolCalls ?? [];
  return {
    body: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [
        ...(options.text ? [{ type: 'text', text: options.text }] : []),
        ...toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args })),
      ],
      stop_reason: toolCalls.length > 0 ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: options.usage?.[0] ?? 13, output_tokens: options.usage?.[1] ?? 5 },
    },
  };
}
