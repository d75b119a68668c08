import http from 'node:http';

/**
 * A loopback HTTP server that speaks a provider's wire format from a script: each request gets the
 * next scripted response (status, JSON body, headers). Every request is recorded so tests can
 * assert on what the provider sent. No network beyond 127.0.0.1.
 */
export interface ScriptedResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface FakeProviderServer {
  baseUrl: string;
  requests: RecordedRequest[];
  respond(...responses: ScriptedResponse[]): void;
  close(): Promise<void>;
}

export async function startFakeProviderServer(): Promise<FakeProviderServer> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: text ? JSON.parse(text) : null });
      const next = queue.shift() ?? { status: 500, body: { error: { message: 'the fake server has no scripted response left' } } };
      response.writeHead(next.status ?? 200, { 'content-type': 'application/json', ...next.headers });
      response.end(JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    respond: (...responses) => void queue.push(...responses),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An OpenAI Chat Completions reply. */
export function openAiReply(options: { text?: string | null; toolCalls?: Array<{ id: string; name: string; args: unknown }>; usage?: [number, number] }): ScriptedResponse {
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
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } })) } : {}),
          },
          finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: options.usage?.[0] ?? 11, completion_tokens: options.usage?.[1] ?? 7, total_tokens: (options.usage?.[0] ?? 11) + (options.usage?.[1] ?? 7) },
    },
  };
}

/** An Anthropic Messages reply. */
export function anthropicReply(options: { text?: string; toolCalls?: Array<{ id: string; name: string; args: unknown }>; usage?: [number, number] }): ScriptedResponse {
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
