import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Role, TaskState, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { a2aSdkClient } from './support/a2a-sdk-client';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { eventsQuery } from '../src/protocol/run-messages';
import type { RunEvent } from '../src/protocol/run-events';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The A2A server (issue #44) driven by the A2A SDK's own client (`ClientFactory` over JSON-RPC):
 * cards, tasks as runs and thread turns, streams, a dropped stream resubscribed, an approval asked
 * as `input-required` and answered by the caller's next message, cancel, and the protocol's errors.
 * Raw `fetch` only for what the SDK client cannot send (malformed JSON-RPC, an oversize body).
 */

const key = 'a2a-key-0123456789abcdef';
const readOnlyKey = 'a2a-reader-0123456789abcdef';
const approverKey = 'a2a-approver-0123456789abcdef';
const access: GatewayAccess = {
  keys: [
    { principal: 'dana@example.com', sha256: hashGatewayKey(key), scopes: ['start', 'send', 'read', 'approve'] },
    { principal: 'reader@example.com', sha256: hashGatewayKey(readOnlyKey), scopes: ['read'] },
    { principal: 'erin@example.com', sha256: hashGatewayKey(approverKey), scopes: ['read', 'approve'] },
  ],
};
const LONG_ANSWER = Array.from({ length: 30 }, (_, index) => `word${index + 1}`).join(' ');
const testTools = createTestTools();
const writer = defineAgent({ config: { name: 'writer', model: 'scripted:write' }, label: 'v1' });
const slow = defineAgent({ config: { name: 'slow', model: 'scripted:slow', tools: ['noop'] } });
const deployer = defineAgent({ config: { name: 'deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
const hidden = defineAgent({ config: { name: 'hidden', model: 'scripted:write' } });
let env: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [writer, slow, deployer, hidden],
    scripts: {
      write: { replies: [{ text: 'Answer to {{user}}' }, { text: 'Answer to {{user}}' }, { text: 'Answer to {{user}}' }] },
      slow: {
        replies: [
          { toolCalls: [{ name: 'noop', args: {} }] },
          { toolCalls: [{ name: 'noop', args: {} }], delayMs: 1_500 },
          { text: LONG_ANSWER, delayMs: 1_500 },
        ],
      },
      deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] },
    },
  });
  gateway = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0, a2a: { agents: ['writer', 'slow', 'deployer'] } });
});

afterAll(async () => {
  await gateway?.close();
  await env?.close();
});

/** The SDK's client for one agent, from its card, sending `credential` as a bearer token. */
async function clientFor(agent: string, credential = key): Promise<Client> {
  return a2aSdkClient(`${gateway.url}/a2a/${agent}/`, credential);
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function userMessage(text: string, ids: { contextId?: string; taskId?: string; parts?: Part[]; metadata?: Record<string, unknown> } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts: ids.parts ?? [textPart(text)],
    metadata: ids.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

function send(message: Message) {
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

function answerOf(task: Task): string {
  const part = task.artifacts.find((artifact) => artifact.artifactId === 'answer')?.parts[0];
  return part?.content?.$case === 'text' ? part.content.value : '';
}

function asTask(result: Message | Task): Task {
  if (!('status' in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

function stateOf(update: StreamResponse): TaskState | null {
  const payload = update.payload;
  if (payload?.$case === 'task') return payload.value.status?.state ?? null;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state ?? null;
  return null;
}

/** The status message ids of a stream's status updates (each names the event it came from: `<task>:status-<seq>`). */
function statusIds(updates: StreamResponse[]): string[] {
  return updates.flatMap((update) =>
    update.payload?.$case === 'statusUpdate' && update.payload.value.status?.message ? [update.payload.value.status.message.messageId] : [],
  );
}

/** A run's logged events after `cursor`, asked again while a busy worker lets the query time out. */
async function eventsOf(workflowId: string, cursor = 0): Promise<RunEvent[]> {
  let events: RunEvent[] = [];
  await eventually(async () => {
    events = (await env.agents.getRun(workflowId).workflow.query(eventsQuery, cursor, 500)).events;
    return true;
  });
  return events;
}

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const updates: StreamResponse[] = [];
  for await (const update of stream) updates.push(update);
  return updates;
}

async function rejectionOf(promise: Promise<unknown>): Promise<{ envelopeCode?: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { envelopeCode?: number; message: string };
  }
  throw new Error('expected a rejection');
}

async function rpc(
  agent: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { error?: { code: number; message: string } } }> {
  const response = await fetch(`${gateway.url}/a2a/${agent}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: number; message: string } } };
}

describe('the agent card', () => {
  it("gives the agent's name, version, skills from its tools, its endpoint and the bearer scheme", async () => {
    const card = await (await clientFor('deployer')).getAgentCard();
    expect(card.name).toBe('deployer');
    expect(card.version).toBe(deployer.version);
    expect(card.skills.map((skill) => skill.id)).toEqual(['deployer', 'tool:echo']);
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${gateway.url}/a2a/deployer`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.capabilities).toMatchObject({ streaming: true });
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
  });

  it('is not found for an agent the server does not expose', async () => {
    const response = await fetch(`${gateway.url}/a2a/hidden/.well-known/agent-card.json`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('AgentNotFound');
  });
});

describe('tasks', () => {
  it('answers a message without a context id as a run, read back by any call from the workflow', async () => {
    const client = await clientFor('writer');
    const task = asTask(await client.sendMessage(send(userMessage('life'))));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe('Answer to life');
    expect(task.contextId).toBe(task.id);
    const read = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(read)).toBe('Answer to life');
    expect(read.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'life' });
  });

  it('sends messages with a context id to the thread of that id, one task per turn', async () => {
    const client = await clientFor('writer');
    const contextId = `a2a-thread-${randomUUID().slice(0, 8)}`;
    const first = asTask(await client.sendMessage(send(userMessage('one', { contextId }))));
    const second = asTask(await client.sendMessage(send(userMessage('two', { contextId }))));
    expect([first.id, second.id]).toEqual([`${contextId}#1`, `${contextId}#2`]);
    expect([first.contextId, second.contextId]).toEqual([contextId, contextId]);
    expect(answerOf(second)).toBe('Answer to two');
    const status = await env.agents.thread(contextId).status();
    expect(status.turnsCompleted).toBe(2);
  });

  it('streams a task from submitted to completed, the answer as an artifact', async () => {
    const client = await clientFor('writer');
    const updates = await collect(client.sendMessageStream(send(userMessage('streams'))));
    expect(updates[0]?.payload?.$case).toBe('task');
    expect(stateOf(updates.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = updates.find((update) => update.payload?.$case === 'artifactUpdate');
    expect(artifact?.payload?.$case === 'artifactUpdate' && artifact.payload.value.artifact?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Answer to streams',
    });
  });

  it('resubscribes after a dropped stream: the task as it is, then every later update once', async () => {
    const client = await clientFor('slow');
    const abort = new AbortController();
    const before: StreamResponse[] = [];
    let taskId = '';
    const stream = client.sendMessageStream(send(userMessage('take your time')), { signal: abort.signal });
    try {
      for await (const update of stream) {
        before.push(update);
        if (update.payload?.$case === 'task') taskId = update.payload.value.id;
        if (statusIds(before).length >= 2) break;
      }
    } finally {
      abort.abort();
    }
    expect(taskId).not.toBe('');
    const after = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
    expect(after[0]?.payload?.$case).toBe('task');
    const snapshot = after[0]!.payload!.value as Task;
    const seqOf = (id: string) => Number(id.split(':status-')[1]);
    const snapshotSeq = snapshot.status?.message ? seqOf(snapshot.status.message.messageId) : 0;
    const seenBefore = statusIds(before);
    const seenAfter = statusIds(after).filter((id) => !id.endsWith(':final'));
    expect(stateOf(after.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    // No duplicate: nothing after the snapshot was sent before the drop, and nothing twice.
    expect(seenAfter.filter((id) => seenBefore.includes(id))).toEqual([]);
    expect(new Set(seenAfter).size).toBe(seenAfter.length);
    expect(seenAfter.every((id) => seqOf(id) > snapshotSeq)).toBe(true);
    // No gap: every status event the run logged after the snapshot came, in order.
    const events = await eventsOf(taskId, snapshotSeq);
    const shown = new Set(['tool-called', 'text-produced', 'approval-requested', 'approval-decided', 'run-started']);
    const expected = events
      .filter((event) => shown.has(event.type) && (event.type !== 'text-produced' || event.text.trim()))
      .map((event) => `${taskId}:status-${event.seq}`);
    expect(seenAfter).toEqual(expected);
    expect(answerOf(asTask(await client.getTask({ tenant: '', id: taskId, historyLength: undefined })))).toBe(LONG_ANSWER);
  });
});

describe('approvals', () => {
  it("asks for input when the run waits for an approval; the caller's next message approves it and the tool runs", async () => {
    const client = await clientFor('deployer');
    const updates = await collect(client.sendMessageStream(send(userMessage('deploy'))));
    const waiting = updates.at(-1)!;
    expect(stateOf(waiting)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = (updates[0]!.payload!.value as Task).id;
    const data = (waiting.payload!.value as { status: { message: Message } }).status.message.parts.find((part) => part.content?.$case === 'data');
    expect(data?.content?.$case === 'data' && data.content.value).toMatchObject({ approvals: [{ toolName: 'echo', args: { text: 'ship it' } }] });
    const echoesBefore = testTools.executions.filter((execution) => execution.tool === 'echo').length;
    const done = asTask(await client.sendMessage(send(userMessage('approve looks fine', { taskId, contextId: taskId }))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(done)).toBe('Done: ship it');
    expect(testTools.executions.filter((execution) => execution.tool === 'echo').length).toBe(echoesBefore + 1);
    const events = await eventsOf(taskId);
    expect(events.find((event) => event.type === 'approval-decided')).toMatchObject({
      outcome: 'approved',
      decidedBy: 'dana@example.com',
      reason: 'looks fine',
      via: 'a2a',
    });
  });

  it('takes the first of two doors at once (an A2A reply, a gateway decision): applied once, its door recorded, the other told', async () => {
    const client = await clientFor('deployer');
    const waiting = asTask(await client.sendMessage(send(userMessage('deploy in a race'))));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const approvalId = (await env.agents.getRun(waiting.id).status()).pendingApprovals[0]!.approvalId;
    const echoesBefore = testTools.executions.filter((execution) => execution.tool === 'echo').length;
    const [, viaHttp] = await Promise.all([
      client.sendMessage(send(userMessage('approve', { taskId: waiting.id }))),
      fetch(`${gateway.url}/v1/approvals/${waiting.id}/${approvalId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${approverKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'reject', reason: 'not in a race' }),
      }),
    ]);
    const decided = await eventually(async () => {
      const events = (await eventsOf(waiting.id)).filter((event) => event.type === 'approval-decided');
      return events.length > 0 && events;
    });
    expect(decided).toHaveLength(1);
    const winner = decided[0]!;
    if (winner.type !== 'approval-decided') throw new Error('unreachable');
    if (winner.via === 'http') {
      expect(viaHttp.status).toBe(200);
      expect(winner).toMatchObject({ outcome: 'rejected', decidedBy: 'erin@example.com' });
    } else {
      expect(winner).toMatchObject({ outcome: 'approved', decidedBy: 'dana@example.com', via: 'a2a' });
      expect(viaHttp.status).toBe(409);
      expect(((await viaHttp.json()) as { error: unknown }).error).toMatchObject({
        code: 'AlreadyDecided',
        decidedBy: 'dana@example.com',
        decidedVia: 'a2a',
      });
    }
    await eventually(async () => (await env.agents.getRun(waiting.id).workflow.describe()).status.name === 'COMPLETED', 60_000);
    const echoes = testTools.executions.filter((execution) => execution.tool === 'echo').length - echoesBefore;
    expect(echoes).toBe(winner.outcome === 'approved' ? 1 : 0);
  });

  it('takes a data part { decision, reason }: a rejection the model sees, the tool not run', async () => {
    const client = await clientFor('deployer');
    const waiting = asTask(await client.sendMessage(send(userMessage('deploy again'))));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const echoesBefore = testTools.executions.filter((execution) => execution.tool === 'echo').length;
    const parts: Part[] = [
      {
        content: { $case: 'data', value: { decision: 'reject', reason: 'not on a Friday' } },
        metadata: undefined,
        filename: '',
        mediaType: 'application/json',
      },
    ];
    const done = asTask(await client.sendMessage(send(userMessage('', { taskId: waiting.id, parts }))));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(testTools.executions.filter((execution) => execution.tool === 'echo').length).toBe(echoesBefore);
    const events = await eventsOf(waiting.id);
    expect(events.find((event) => event.type === 'approval-decided')).toMatchObject({ outcome: 'rejected', reason: 'not on a Friday' });
  });

  it('refuses an answer that is neither approve nor reject, deciding nothing', async () => {
    const client = await clientFor('deployer');
    const waiting = asTask(await client.sendMessage(send(userMessage('deploy once more'))));
    const error = await rejectionOf(client.sendMessage(send(userMessage('maybe later', { taskId: waiting.id }))));
    expect(error.envelopeCode).toBe(-32602);
    const still = await client.getTask({ tenant: '', id: waiting.id, historyLength: undefined });
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await env.agents.getRun(waiting.id).workflow.cancel();
  });
});

describe('cancel and errors', () => {
  it("cancels a run's task; a second cancel and a turn's cancel are refused as not cancelable", async () => {
    const client = await clientFor('deployer');
    const waiting = asTask(await client.sendMessage(send(userMessage('deploy, then wait'))));
    const cancelled = await client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await eventually(async () => (await env.agents.getRun(waiting.id).workflow.describe()).status.name === 'CANCELLED');
    expect((await rejectionOf(client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined }))).envelopeCode).toBe(-32002);
    const writerClient = await clientFor('writer');
    const contextId = `a2a-cancel-${randomUUID().slice(0, 8)}`;
    const turn = asTask(await writerClient.sendMessage(send(userMessage('hi', { contextId }))));
    expect((await rejectionOf(writerClient.cancelTask({ tenant: '', id: turn.id, metadata: undefined }))).envelopeCode).toBe(-32002);
  });

  it('answers TaskNotFound for an unknown task, read or resubscribed, and for another agent’s task', async () => {
    const client = await clientFor('writer');
    expect((await rejectionOf(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }))).envelopeCode).toBe(-32001);
    expect((await rejectionOf(collect(client.resubscribeTask({ tenant: '', id: 'no-such-task#3' })))).envelopeCode).toBe(-32001);
    const other = asTask(await client.sendMessage(send(userMessage('mine'))));
    const deployerClient = await clientFor('deployer');
    expect((await rejectionOf(deployerClient.getTask({ tenant: '', id: other.id, historyLength: undefined }))).envelopeCode).toBe(-32001);
  });

  it('refuses an unknown skill as invalid params, starting nothing', async () => {
    const client = await clientFor('writer');
    const error = await rejectionOf(client.sendMessage(send(userMessage('x', { metadata: { skill: 'tool:teleport' } }))));
    expect(error.envelopeCode).toBe(-32602);
    expect(error.message).toContain('tool:teleport');
  });

  it('answers malformed JSON-RPC per JSON-RPC, an oversize body before Temporal, and callers without a key or scope', async () => {
    const parse = await rpc('writer', '{"jsonrpc": "2.0", "method": ');
    expect(parse.body.error?.code).toBe(-32700);
    const invalid = await rpc('writer', JSON.stringify({ id: 1, method: 'GetTask', params: { id: 'x' } }));
    expect(invalid.body.error?.code).toBe(-32600);
    const unknownMethod = await rpc('writer', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'Teleport', params: {} }));
    expect(unknownMethod.body.error?.code).toBe(-32601);
    const huge = await rpc(
      'writer',
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: { text: 'x'.repeat(1_100_000) } } }),
    );
    expect(huge.status).toBe(413);
    expect(huge.body.error?.code).toBe(-32600);
    const unknownAgent = await rpc('hidden', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 'x' } }));
    expect(unknownAgent.status).toBe(404);
    const noKey = await rpc('writer', JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: 'x' } }), { authorization: '' });
    expect(noKey.status).toBe(401);
    const reader = await clientFor('writer', readOnlyKey);
    const refused = await rejectionOf(reader.sendMessage(send(userMessage('may I?'))));
    expect(refused.message).toMatch(/403|lacks the scope 'start'/);
  });
});
