import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventType, type HttpAgent, type BaseEvent, type Interrupt } from '@ag-ui/client';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { eventsQuery } from '../src/protocol/run-messages';
import { aguiClient, expectRunError, ofType, runAgui } from './support/agui-client';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The gateway's AG-UI endpoint (issue #43) read by AG-UI's official client, `HttpAgent` from
 * `@ag-ui/client`, which checks every event sequence it receives: a turn streams as it is written,
 * tool calls come with their results, an approval wait finishes the run with an interrupt the client
 * resumes (decided as the key's principal), and bad input is answered with a typed error.
 */

const key = 'agui-key-0123456789abcdef';
const access: GatewayAccess = {
  keys: [{ principal: 'dana@example.com', sha256: hashGatewayKey(key), scopes: ['send', 'read', 'approve'] }],
};
const headers = { authorization: `Bearer ${key}` };
const LONG_ANSWER = Array.from({ length: 30 }, (_, index) => `word${index + 1}`).join(' ');
const testTools = createTestTools();
const slowWriter = defineAgent({ config: { name: 'agui-writer', model: 'scripted:slow' } });
const toolUser = defineAgent({ config: { name: 'agui-tools', model: 'scripted:tools', tools: ['echo'] } });
const failing = defineAgent({ config: { name: 'agui-failing', model: 'scripted:broken', max_retries: 2 } });
const deployer = defineAgent({ config: { name: 'agui-deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
let env: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [slowWriter, toolUser, deployer, failing],
    scripts: {
      slow: { replies: [{ text: LONG_ANSWER, streamMs: 100 }] },
      tools: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ping' } }] }, { text: 'Echoed: {{tool:echo}}' }] },
      broken: { replies: [{ error: { code: 'ModelServerError' as const, message: '503 upstream unavailable' } }] },
      deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] },
    },
  });
  gateway = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await env?.close();
});

/** An official AG-UI client of thread `threadId` (its user message already added), and the responses it was given. */
function agentFor(agent: string, threadId: string, text: string | null) {
  return aguiClient(`${gateway.url}/v1/agui?agent=${agent}`, headers, threadId, text);
}

const run = runAgui;

describe('AG-UI runs through HttpAgent', () => {
  it('streams a turn as it is written, with steps and the result', async () => {
    const threadId = `agui-${randomUUID().slice(0, 8)}`;
    const { client } = agentFor('agui-writer', threadId, 'Count');
    const events = await run(client);
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId });
    expect(ofType(events, EventType.STEP_STARTED)).toEqual([expect.objectContaining({ stepName: 'step-1' })]);
    const deltas = ofType<BaseEvent & { delta: string }>(events, EventType.TEXT_MESSAGE_CONTENT);
    // Written over ~3 s and read from heartbeats: the client saw the text grow, not one final block.
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.delta).join('')).toBe(LONG_ANSWER);
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      threadId,
      result: { turn: 1, stopReason: 'completed', output: LONG_ANSWER, usage: expect.objectContaining({ inputTokens: expect.any(Number) }) },
    });
    expect(client.messages.filter((message) => message.role === 'assistant').map((message) => message.content)).toEqual([LONG_ANSWER]);
    expect(client.state).toMatchObject({ threadId, turn: 1, waitingFor: null });
  });

  it('sends tool calls with their arguments and results', async () => {
    const threadId = `agui-tools-${randomUUID().slice(0, 8)}`;
    const { client } = agentFor('agui-tools', threadId, 'Echo something');
    const events = await run(client);
    const start = ofType<BaseEvent & { toolCallId: string; toolCallName: string }>(events, EventType.TOOL_CALL_START);
    expect(start).toEqual([expect.objectContaining({ toolCallName: 'echo' })]);
    const args = ofType<BaseEvent & { toolCallId: string; delta: string }>(events, EventType.TOOL_CALL_ARGS);
    expect(JSON.parse(args.map((event) => event.delta).join(''))).toEqual({ text: 'ping' });
    const result = ofType<BaseEvent & { toolCallId: string; content: string }>(events, EventType.TOOL_CALL_RESULT);
    expect(result).toEqual([expect.objectContaining({ toolCallId: start[0]!.toolCallId, content: expect.stringContaining('ping') })]);
    expect(ofType(events, EventType.STEP_STARTED).map((event) => (event as { stepName?: string }).stepName)).toEqual(['step-1', 'step-2']);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, result: { stopReason: 'completed' } });
    const toolMessage = client.messages.find((message) => message.role === 'tool');
    expect(toolMessage).toMatchObject({ toolCallId: start[0]!.toolCallId });
    const answer = client.messages.filter((message) => message.role === 'assistant').map((message) => message.content ?? '');
    expect(answer.join('')).toContain('Echoed: ');
  });

  it('finishes at an approval wait with an interrupt the client resumes; the decision is the key principal', async () => {
    const threadId = `agui-deploy-${randomUUID().slice(0, 8)}`;
    const { client } = agentFor('agui-deployer', threadId, 'Deploy the API');
    const first = await run(client);
    const finished = first.at(-1) as BaseEvent & { outcome?: { type: string; interrupts: Interrupt[] } };
    expect(finished).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });
    const interrupts = finished.outcome!.interrupts;
    const call = ofType<BaseEvent & { toolCallId: string }>(first, EventType.TOOL_CALL_START)[0]!;
    expect(interrupts).toEqual([
      expect.objectContaining({
        reason: 'tool_approval',
        toolCallId: call.toolCallId,
        metadata: expect.objectContaining({ toolName: 'echo', args: { text: 'ship it' } }),
      }),
    ]);
    expect(client.pendingInterrupts.map((interrupt) => interrupt.id)).toEqual([interrupts[0]!.id]);
    expect(client.state).toMatchObject({ waitingFor: 'approval', turn: 1 });
    const second = await run(client, { resume: [{ interruptId: interrupts[0]!.id, status: 'resolved', payload: { approved: true } }] });
    expect(second[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId });
    expect(ofType(second, EventType.TOOL_CALL_START)).toEqual([]);
    expect(ofType(second, EventType.TOOL_CALL_RESULT)).toEqual([
      expect.objectContaining({ toolCallId: call.toolCallId, content: expect.stringContaining('ship it') }),
    ]);
    const text = ofType<BaseEvent & { delta: string }>(second, EventType.TEXT_MESSAGE_CONTENT).map((event) => event.delta);
    expect(text.join('')).toContain('Done: ');
    expect(second.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' }, result: { turn: 1, stopReason: 'completed' } });
    expect(client.pendingInterrupts).toEqual([]);
    const page = await env.agents.getRun(threadId).workflow.query(eventsQuery, 0, 500);
    const decided = page.events.find((event) => event.type === 'approval-decided');
    expect(decided).toMatchObject({ approvalId: interrupts[0]!.id, outcome: 'approved', decidedBy: 'dana@example.com' });
  });
});

/** Runs an agent whose request the gateway refuses: the client's run fails (it logs the failure), with the gateway's answer. */
async function refused(client: HttpAgent, resume?: Parameters<HttpAgent['runAgent']>[0]): Promise<Error> {
  const failure = await client.runAgent(resume).then(
    () => null,
    (error: unknown) => error as Error,
  );
  if (!failure) throw new Error('the run did not fail');
  return failure;
}

describe('AG-UI rejections and failures', () => {
  it('takes a cancelled interrupt as a rejection by the key principal; the turn goes on without the tool', async () => {
    const threadId = `agui-reject-${randomUUID().slice(0, 8)}`;
    const { client } = agentFor('agui-deployer', threadId, 'Deploy the API');
    await run(client);
    const [interrupt] = client.pendingInterrupts;
    expect(interrupt).toMatchObject({ reason: 'tool_approval' });
    const events = await run(client, { resume: [{ interruptId: interrupt!.id, status: 'cancelled' }] });
    const results = ofType<BaseEvent & { content: string; metadata?: unknown }>(events, EventType.TOOL_CALL_RESULT);
    expect(results).toEqual([
      expect.objectContaining({
        toolCallId: interrupt!.toolCallId,
        content: expect.stringContaining('rejected by dana@example.com'),
        metadata: { isError: true },
      }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' }, result: { stopReason: 'completed' } });
  });

  it('ends a failed turn (its model retries used up) with RUN_ERROR', async () => {
    const threadId = `agui-fail-${randomUUID().slice(0, 8)}`;
    const { client } = agentFor('agui-failing', threadId, 'Anything');
    const events = await run(client);
    expectRunError(events, threadId, 'ModelRetriesExhausted', '503 upstream unavailable');
  });
});

describe('bad AG-UI input', () => {
  it('answers an unknown agent, a last message that is not the user’s and a resume without state with typed errors', async () => {
    const unknownAgent = `no-such-agent-${randomUUID().slice(0, 6)}`;
    const unknown = agentFor(unknownAgent, `agui-bad-${randomUUID().slice(0, 8)}`, 'Hello');
    expect((await refused(unknown.client)).message).toContain('HTTP 404');
    expect(unknown.responses).toEqual([
      {
        status: 404,
        body: { error: expect.objectContaining({ code: 'AgentNotFound', field: 'agent', message: expect.stringContaining(unknownAgent) }) },
      },
    ]);

    const assistantLast = agentFor('agui-writer', `agui-bad-${randomUUID().slice(0, 8)}`, null);
    assistantLast.client.addMessage({ id: 'a1', role: 'assistant', content: 'I spoke first' });
    expect((await refused(assistantLast.client)).message).toContain('HTTP 400');
    expect(assistantLast.responses).toEqual([
      { status: 400, body: { error: expect.objectContaining({ code: 'InvalidRequest', field: 'messages' }) } },
    ]);

    const stateless = agentFor('agui-deployer', `agui-bad-${randomUUID().slice(0, 8)}`, 'Deploy');
    await refused(stateless.client, { resume: [{ interruptId: 'step-1.call-1', status: 'resolved', payload: { approved: true } }] });
    expect(stateless.responses).toEqual([{ status: 400, body: { error: expect.objectContaining({ code: 'InvalidRequest', field: 'state' }) } }]);
  });
});
