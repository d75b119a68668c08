import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventType, type BaseEvent, type Interrupt } from '@ag-ui/client';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { eventsQuery } from '../src/protocol/run-messages';
import { aguiClient, expectRunError, ofType, runAgui } from './support/agui-client';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * One-shot runs of named agents as AG-UI runs (`POST /v1/agui/runs`, issue #43), read by AG-UI's
 * official client `HttpAgent`: the user's message is the run's task, the run streams its steps,
 * text and tool calls, an approval wait finishes the AG-UI run with an interrupt the client resumes
 * (decided as the key's principal), RUN_FINISHED carries the run's result and a failed run ends with RUN_ERROR.
 */

const key = 'agui-runs-key-0123456789abcdef';
const access: GatewayAccess = {
  keys: [{ principal: 'ravi@example.com', sha256: hashGatewayKey(key), scopes: ['start', 'read', 'approve'] }],
};
const headers = { authorization: `Bearer ${key}` };
const testTools = createTestTools();
const toolUser = defineAgent({ config: { name: 'agui-run-tools', model: 'scripted:tools', tools: ['echo'] } });
const deployer = defineAgent({ config: { name: 'agui-run-deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
const failing = defineAgent({ config: { name: 'agui-run-failing', model: 'scripted:broken', max_retries: 2 } });
let env: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [toolUser, deployer, failing],
    scripts: {
      tools: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ping' } }] }, { text: 'Echoed: {{tool:echo}}' }] },
      deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] },
      broken: { replies: [{ error: { code: 'ModelServerError' as const, message: '503 upstream unavailable' } }] },
    },
  });
  gateway = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await env?.close();
});

/** An official AG-UI client of a run (`threadId` is its workflow id), with the user's task added, and the answers it was given. */
function runClient(url: string, threadId: string, task: string | null) {
  return aguiClient(`${gateway.url}${url}`, headers, threadId, task, `${threadId}-task`);
}

const run = runAgui;

describe('one-shot runs through HttpAgent', () => {
  it('is in the OpenAPI document the gateway serves, with its scope and its AG-UI answer', async () => {
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    const route = document.paths['/v1/agui/runs']!.post;
    expect(route).toMatchObject({ operationId: 'aguiRun', 'x-scope': 'start' });
    expect(route.responses['200'].content).toHaveProperty(['text/event-stream']);
    expect(route.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['threadId', 'runId', 'messages']));
  });

  it("streams a run's steps, tool calls and text, and finishes with the run's result", async () => {
    const threadId = `agui-run-${randomUUID().slice(0, 8)}`;
    const { client } = runClient('/v1/agui/runs?agent=agui-run-tools', threadId, 'Echo something');
    const events = await run(client);
    const firstRunId = (await env.agents.getRun(threadId).workflow.describe()).runId;
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId });
    expect(ofType(events, EventType.STEP_STARTED).map((event) => (event as { stepName?: string }).stepName)).toEqual(['step-1', 'step-2']);
    const start = ofType<BaseEvent & { toolCallId: string; toolCallName: string }>(events, EventType.TOOL_CALL_START);
    expect(start).toEqual([expect.objectContaining({ toolCallName: 'echo' })]);
    const args = ofType<BaseEvent & { delta: string }>(events, EventType.TOOL_CALL_ARGS);
    expect(JSON.parse(args.map((event) => event.delta).join(''))).toEqual({ text: 'ping' });
    expect(ofType(events, EventType.TOOL_CALL_RESULT)).toEqual([
      expect.objectContaining({ toolCallId: start[0]!.toolCallId, content: expect.stringContaining('ping') }),
    ]);
    const text = ofType<BaseEvent & { delta: string }>(events, EventType.TEXT_MESSAGE_CONTENT).map((event) => event.delta);
    expect(text.join('')).toMatch(/^Echoed: /);
    // RUN_FINISHED carries the run's own result, the one `GET /v1/runs/:id/result` answers.
    const result = await env.agents.getRun(threadId).result();
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      threadId,
      outcome: { type: 'success' },
      result: {
        workflowId: threadId,
        output: result.output,
        stopReason: 'completed',
        steps: 2,
        usage: expect.objectContaining({ inputTokens: expect.any(Number) }),
      },
    });
    expect(client.state).toMatchObject({ kind: 'run', workflowId: threadId, turn: null, waitingFor: null });
    const answer = client.messages.filter((message) => message.role === 'assistant').map((message) => message.content ?? '');
    expect(answer.join('')).toBe(result.output);

    // A new task on the same AG-UI thread, once the run has ended, is a new run under the same workflow id.
    client.addMessage({ id: `${threadId}-task-2`, role: 'user', content: 'Echo again' });
    const again = await run(client);
    expect(again.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, result: { workflowId: threadId, stopReason: 'completed' } });
    expect(ofType(again, EventType.TOOL_CALL_START)).toHaveLength(1);
    const runs = await env.agents.getRun(threadId).workflow.describe();
    expect(runs.runId).not.toBe(firstRunId);
  });

  it('finishes at an approval wait with an interrupt the client resumes; the decision is the key principal', async () => {
    const threadId = `agui-run-deploy-${randomUUID().slice(0, 8)}`;
    const { client } = runClient('/v1/agui/runs', threadId, 'Deploy the API');
    const first = await run(client, { forwardedProps: { agent: 'agui-run-deployer' } });
    const finished = first.at(-1) as BaseEvent & { outcome?: { type: string; interrupts: Interrupt[] } };
    expect(finished).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'interrupt' } });
    const call = ofType<BaseEvent & { toolCallId: string }>(first, EventType.TOOL_CALL_START)[0]!;
    expect(finished.outcome!.interrupts).toEqual([
      expect.objectContaining({ reason: 'tool_approval', toolCallId: call.toolCallId, metadata: expect.objectContaining({ toolName: 'echo' }) }),
    ]);
    expect(client.state).toMatchObject({ kind: 'run', waitingFor: 'approval', resumeAfter: expect.any(Number) });
    const [interrupt] = client.pendingInterrupts;
    const second = await run(client, { resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }] });
    expect(second[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId });
    // Nothing the first AG-UI run sent comes again: the resumed one starts with the tool's result.
    expect(ofType(second, EventType.TOOL_CALL_START)).toEqual([]);
    expect(ofType(second, EventType.TOOL_CALL_RESULT)).toEqual([
      expect.objectContaining({ toolCallId: call.toolCallId, content: expect.stringContaining('ship it') }),
    ]);
    expect(second.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'success' },
      result: { workflowId: threadId, stopReason: 'completed', output: expect.stringContaining('Done: ') },
    });
    expect(client.pendingInterrupts).toEqual([]);
    const page = await env.agents.getRun(threadId).workflow.query(eventsQuery, 0, 500);
    expect(page.events.find((event) => event.type === 'approval-decided')).toMatchObject({
      approvalId: interrupt!.id,
      outcome: 'approved',
      decidedBy: 'ravi@example.com',
    });
  });

  it('ends a failed run with RUN_ERROR carrying its failure type', async () => {
    const threadId = `agui-run-fail-${randomUUID().slice(0, 8)}`;
    const { client } = runClient('/v1/agui/runs?agent=agui-run-failing', threadId, 'Anything');
    const events = await run(client);
    expectRunError(events, threadId, 'ModelRetriesExhausted', '503 upstream unavailable');
  });

  it('refuses a run without an agent, a second run on a running workflow id and a resume without state, with typed errors', async () => {
    const nameless = runClient('/v1/agui/runs', `agui-run-bad-${randomUUID().slice(0, 8)}`, 'Hello');
    await expect(nameless.client.runAgent()).rejects.toThrow('HTTP 400');
    expect(nameless.responses).toEqual([{ status: 400, body: { error: expect.objectContaining({ code: 'InvalidRequest', field: 'agent' }) } }]);

    const threadId = `agui-run-busy-${randomUUID().slice(0, 8)}`;
    const waiting = runClient('/v1/agui/runs?agent=agui-run-deployer', threadId, 'Deploy');
    await run(waiting.client);
    expect(waiting.client.pendingInterrupts).toHaveLength(1);
    const again = runClient('/v1/agui/runs?agent=agui-run-deployer', threadId, 'Deploy again');
    await expect(again.client.runAgent()).rejects.toThrow('HTTP 409');
    expect(again.responses).toEqual([{ status: 409, body: { error: expect.objectContaining({ code: 'RunAlreadyStarted', field: 'threadId' }) } }]);

    const stateless = runClient('/v1/agui/runs', threadId, null);
    await expect(stateless.client.runAgent({ resume: [{ interruptId: 'x', status: 'cancelled' }] })).rejects.toThrow('HTTP 400');
    expect(stateless.responses).toEqual([{ status: 400, body: { error: expect.objectContaining({ code: 'InvalidRequest', field: 'state' }) } }]);
    await env.agents.getRun(threadId).workflow.terminate('test done');
  });
});
