import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { MemoryChat } from './support/memory-chat';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The gateway's streams (issue #43) read by the AI SDK's own client: its chat (`AbstractChat`, what
 * `useChat` wraps) over `DefaultChatTransport`, its `readUIMessageStream`, and `eventsource-parser`
 * for `Last-Event-ID`. A turn streams as it is written, waits for approvals as tool parts the chat
 * answers, resumes after a dropped connection on another gateway process without gap or duplicate,
 * and every stream of one thread shares one feed.
 */

const key = 'chat-key-0123456789abcdef';
const access: GatewayAccess = {
  keys: [{ principal: 'carol@example.com', sha256: hashGatewayKey(key), scopes: ['send', 'read', 'approve'] }],
};
const headers = { authorization: `Bearer ${key}` };
const LONG_ANSWER = Array.from({ length: 40 }, (_, index) => `word${index + 1}`).join(' ');
const testTools = createTestTools();
const writer = defineAgent({ config: { name: 'writer', model: 'scripted:write' } });
const slowWriter = defineAgent({ config: { name: 'slow-writer', model: 'scripted:slow' } });
const deployer = defineAgent({ config: { name: 'deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
let env: TestEnvironment;
let gateway: RunningGateway;
let secondGateway: RunningGateway | null = null;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [writer, slowWriter, deployer],
    scripts: {
      write: { replies: [{ text: 'The answer to {{user}} is streamed word by word here', streamMs: 60 }] },
      slow: { replies: [{ text: LONG_ANSWER, streamMs: 120 }] },
      deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] },
    },
  });
  gateway = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await secondGateway?.close();
  await gateway?.close();
  await env?.close();
});

/** A response body's SSE messages, parsed by eventsource-parser (the parser the AI SDK itself uses). */
function sseEvents(body: ReadableStream<Uint8Array>): ReadableStream<EventSourceMessage> {
  let feed: (chunk: string) => void = () => undefined;
  return body.pipeThrough(new TextDecoderStream()).pipeThrough(
    new TransformStream<string, EventSourceMessage>({
      start(controller) {
        const parser = createParser({ onEvent: (event) => controller.enqueue(event) });
        feed = (chunk) => parser.feed(chunk);
      },
      transform(chunk) {
        feed(chunk);
      },
    }),
  );
}

function transport(agent: string, url = gateway.url): DefaultChatTransport<UIMessage> {
  return new DefaultChatTransport({ api: `${url}/v1/chat?agent=${agent}`, headers });
}

function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => (part as { text: string }).text)
    .join('');
}

async function lastMessageOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

describe('the AI SDK chat', () => {
  it('streams a turn to the SDK chat as it is written, with usage on finish', async () => {
    const chatId = `chat-${randomUUID().slice(0, 8)}`;
    const deltas: string[] = [];
    const counting = new DefaultChatTransport<UIMessage>({
      api: `${gateway.url}/v1/chat?agent=writer`,
      headers,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const [mine, theirs] = response.body!.tee();
        void (async () => {
          for await (const event of sseEvents(mine)) if (event.data.includes('"text-delta"')) deltas.push(event.data);
        })();
        return new Response(theirs, { status: response.status, headers: response.headers });
      },
    });
    const chat = new MemoryChat({ id: chatId, transport: counting });
    await chat.sendMessage({ text: 'life' });
    expect(chat.status).toBe('ready');
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const answer = chat.messages[1]!;
    expect(textOf(answer)).toBe('The answer to life is streamed word by word here');
    expect(answer.id).toBe(`${chatId}:turn-1`);
    expect(answer.metadata).toMatchObject({ turn: 1, stopReason: 'completed', usage: expect.objectContaining({ inputTokens: expect.any(Number) }) });
    // Written over ~600 ms and read from heartbeats: the chat saw the text grow, not one final block.
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('shows a gated call as a tool part the chat approves; the turn goes on as the caller', async () => {
    const chatId = `deploy-${randomUUID().slice(0, 8)}`;
    const chat = new MemoryChat({
      id: chatId,
      transport: transport('deployer'),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Deploy the API' });
    const waiting = chat.messages.at(-1)!;
    expect(waiting.metadata).toMatchObject({ turn: 1, waitingFor: 'approval' });
    const toolPart = waiting.parts.find((part) => part.type === 'tool-echo') as Record<string, any>;
    expect(toolPart).toMatchObject({ state: 'approval-requested', input: { text: 'ship it' }, approval: { id: expect.any(String) } });
    await chat.addToolApprovalResponse({ id: toolPart.approval.id, approved: true });
    const done = await eventually(() => chat.status === 'ready' && textOf(chat.messages.at(-1)).includes('Done') && chat.messages.at(-1), 60_000);
    expect(done.id).toBe(waiting.id);
    expect(done.parts.find((part) => part.type === 'tool-echo')).toMatchObject({
      state: 'output-available',
      output: expect.stringContaining('ship it'),
    });
    expect(textOf(done)).toContain('Done: ');
    expect(done.metadata).toMatchObject({ turn: 1, stopReason: 'completed' });
    const history = await env.agents.thread(chatId).history();
    const decided = JSON.stringify(history);
    expect(decided).toContain('carol@example.com');
  });

  it('replays a running turn to a chat that reconnects (the SDK resume), whole and once', async () => {
    const chatId = `resume-${randomUUID().slice(0, 8)}`;
    const first = new AbortController();
    const stream = await transport('slow-writer').sendMessages({
      chatId,
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Count' }] }],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: first.signal,
    });
    const reader = stream.getReader();
    for (let seen = ''; !seen.includes('word3');) {
      const next = await reader.read();
      if (next.done) throw new Error('the stream ended before word3');
      if (next.value.type === 'text-delta') seen += next.value.delta;
    }
    first.abort();
    await reader.cancel().catch(() => undefined);
    const resumed = await transport('slow-writer').reconnectToStream({ chatId });
    expect(resumed).not.toBeNull();
    const message = await lastMessageOf(resumed!);
    expect(message?.id).toBe(`${chatId}:turn-1`);
    expect(textOf(message)).toBe(LONG_ANSWER);
    const idle = await fetch(`${gateway.url}/v1/chat/${chatId}/stream`, { headers });
    expect(idle.status).toBe(204);
  });
});

/** The SSE events of a stream until `stop` says so (or it ends): each event's id and chunk. */
async function readEvents(
  response: Response,
  stop: (chunk: UIMessageChunk, text: string) => boolean,
): Promise<{ events: Array<{ id: string | undefined; chunk: UIMessageChunk }>; text: string }> {
  const events: Array<{ id: string | undefined; chunk: UIMessageChunk }> = [];
  let text = '';
  const reader = sseEvents(response.body!).getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done || next.value.data === '[DONE]') break;
    const chunk = JSON.parse(next.value.data) as UIMessageChunk;
    events.push({ id: next.value.id, chunk });
    if (chunk.type === 'text-delta') text += chunk.delta;
    if (stop(chunk, text)) break;
  }
  await reader.cancel().catch(() => undefined);
  return { events, text };
}

describe('resumable streams', () => {
  it('continues after Last-Event-ID on another gateway process, without a gap or a duplicate', async () => {
    const threadId = `lei-${randomUUID().slice(0, 8)}`;
    await env.agents.thread(threadId, { agent: 'slow-writer' }).send('Count again');
    const first = await readEvents(await fetch(`${gateway.url}/v1/threads/${threadId}/turns/1/stream`, { headers }), (_, text) =>
      text.includes('word4'),
    );
    // What a client had when it lost the connection: every chunk up to the last one with an id.
    let lastIndex = first.events.length - 1;
    while (first.events[lastIndex]!.id === undefined) lastIndex--;
    const lastId = first.events[lastIndex]!.id!;
    const seenText = first.events.slice(0, lastIndex + 1).reduce((text, { chunk }) => (chunk.type === 'text-delta' ? text + chunk.delta : text), '');
    secondGateway = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0 });
    const rest = await readEvents(
      await fetch(`${secondGateway.url}/v1/threads/${threadId}/turns/1/stream`, { headers: { ...headers, 'last-event-id': lastId } }),
      () => false,
    );
    expect(rest.events.some(({ chunk }) => chunk.type === 'text-start')).toBe(false);
    expect(seenText + rest.text).toBe(LONG_ANSWER);
    expect(rest.events.at(-1)?.chunk).toMatchObject({ type: 'finish', finishReason: 'stop' });
    // The turn has finished: the same request replays it from the log, then the stream closes.
    const replay = await readEvents(await fetch(`${secondGateway.url}/v1/threads/${threadId}/turns/1/stream`, { headers }), () => false);
    expect(replay.text).toBe(LONG_ANSWER);
  });

  it('shares one feed among every stream of a thread', async () => {
    const threadId = `shared-${randomUUID().slice(0, 8)}`;
    await env.agents.thread(threadId, { agent: 'slow-writer' }).send('Share');
    const before = gateway.feeds.stats().requests;
    const reads = [1, 2, 3].map(() =>
      fetch(`${gateway.url}/v1/threads/${threadId}/turns/1/stream`, { headers }).then((response) => readEvents(response, () => false)),
    );
    const open = await eventually(() => {
      const stats = gateway.feeds.stats();
      return stats.streams >= 3 && stats;
    }, 30_000);
    expect(open.feeds).toBeLessThanOrEqual(gateway.feeds.stats().streams);
    const results = await Promise.all(reads);
    for (const result of results) expect(result.text).toBe(LONG_ANSWER);
    const after = gateway.feeds.stats().requests;
    // Three streams of a ~5 s turn: one feed's reads, not three.
    expect(after.describes - before.describes).toBeLessThan(3 * 20);
  });
});

describe('run streams', () => {
  it('streams a run through its approval, decided elsewhere, to its end', async () => {
    const run = await env.agents.startRun({ agent: 'deployer', task: 'Deploy the API' });
    const response = await fetch(`${gateway.url}/v1/runs/${run.workflowId}/stream`, { headers });
    const chunks = sseEvents(response.body!).pipeThrough(
      new TransformStream<EventSourceMessage, UIMessageChunk>({
        transform(event, controller) {
          if (event.data !== '[DONE]') controller.enqueue(JSON.parse(event.data) as UIMessageChunk);
        },
      }),
    );
    const [forMessage, forApproval] = chunks.tee();
    const approved = (async () => {
      const reader = forApproval.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) throw new Error('the stream ended before the approval request');
        if (next.value.type === 'tool-approval-request') {
          await run.approve(next.value.approvalId, { decidedBy: 'console-user' });
          await reader.cancel();
          return;
        }
      }
    })();
    const message = await lastMessageOf(forMessage);
    await approved;
    expect(message?.id).toBe(run.workflowId);
    expect(message?.parts.find((part) => part.type === 'tool-echo')).toMatchObject({ state: 'output-available' });
    expect(textOf(message)).toContain('Done: ');
    expect(message?.metadata).toMatchObject({ stopReason: 'completed', usage: expect.any(Object) });
  });
});

describe('bad stream requests', () => {
  it('refuses a malformed Last-Event-ID, an unknown turn and a regenerate, each with its code', async () => {
    const threadId = `bad-${randomUUID().slice(0, 8)}`;
    await (await env.agents.thread(threadId, { agent: 'writer' }).send('Hi')).result();
    const malformed = await fetch(`${gateway.url}/v1/threads/${threadId}/turns/1/stream`, { headers: { ...headers, 'last-event-id': 'x;y' } });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'InvalidRequest', field: 'Last-Event-ID' } });
    const unknown = await fetch(`${gateway.url}/v1/threads/${threadId}/turns/9/stream`, { headers });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'TurnNotFound', field: 'n' } });
    const regenerate = await fetch(`${gateway.url}/v1/chat`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ id: threadId, trigger: 'regenerate-message', messages: [{ id: 'x', role: 'user', parts: [] }] }),
    });
    expect(regenerate.status).toBe(400);
    expect(await regenerate.json()).toMatchObject({ error: { code: 'InvalidRequest', field: 'trigger' } });
    const noThread = await fetch(`${gateway.url}/v1/chat/no-such-thread-${randomUUID().slice(0, 6)}/stream`, { headers });
    expect(noThread.status).toBe(204);
  });
});
