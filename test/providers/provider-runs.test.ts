import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { temporal } from '@temporalio/proto';
import { AiSdkProvider } from '../../src/models/ai-sdk-provider';
import { openAiReply, startFakeProviderServer, type FakeProviderServer } from '../support/fake-provider-server';
import { createTestEnvironment, type TestEnvironment } from '../support/test-env';
import { createTestTools } from '../support/test-tools';

const CANARY = 'sk-canary-run-9f8e7d6c5b4a-never-in-history';
let server: FakeProviderServer;
let env: TestEnvironment;

beforeAll(async () => {
  server = await startFakeProviderServer();
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    providers: { openai: new AiSdkProvider('openai', { OPENAI_API_KEY: CANARY, OPENAI_BASE_URL: `${server.baseUrl}/v1` }) },
  });
});

afterAll(async () => {
  await env?.close();
  await server?.close();
});

describe('agent runs against a real provider implementation (OpenAI wire format on loopback)', () => {
  it('runs parallel tool calls, sums usage per model, honours retry-after, and never records the key', async () => {
    server.respond(
      { status: 429, body: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '1' } },
      openAiReply({ toolCalls: [{ id: 'call_a', name: 'add', args: { a: 2, b: 3 } }, { id: 'call_b', name: 'echo', args: { text: 'hi' } }], usage: [40, 10] }),
      openAiReply({ text: 'Five, and hi.', usage: [60, 6] }),
    );
    const started = Date.now();
    const run = await env.agents.startRun({ config: { name: 'real', model: 'openai:gpt-4o-mini', tools: ['add', 'echo'] }, task: 'Add and echo' });
    const result = await run.result();
    expect(result.output).toBe('Five, and hi.');
    expect(result.toolResults.map((toolResult) => toolResult.content)).toEqual(['5', 'hi']);
    expect(result.usage.byModel).toEqual({ 'openai:gpt-4o-mini': { inputTokens: 100, outputTokens: 16 } });
    // The 429 was retried after the server's retry-after (1 s), not the default backoff.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const secondCall = server.requests.at(-1)!.body;
    expect(secondCall.messages.slice(-2).map((message: { role: string; tool_call_id: string }) => [message.role, message.tool_call_id])).toEqual([
      ['tool', 'call_a'],
      ['tool', 'call_b'],
    ]);
    const history = await run.workflow.fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
    expect(bytes).not.toContain(CANARY);
  });
});
