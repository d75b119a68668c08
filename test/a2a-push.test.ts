import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Role, TaskState, type Message, type Part, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { a2aSdkClient } from './support/a2a-sdk-client';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { defineAgent } from '../src/agents/define-agent';
import { a2aPushKeysFrom } from '../src/a2a-push/a2a-push-secrets';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { a2aPushWorkflowId } from '../src/protocol/a2a-push';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * A2A push notifications (issue #44) driven by the A2A SDK's own client against two gateways: a
 * config set through gateway A is kept by the task's push workflow, so gateway A closing changes
 * nothing; the task's states reach a real loopback webhook in order with the token header; the
 * config methods; a delete that stops delivery; bad configs refused with nothing stored or started;
 * and the token nowhere in any history.
 */

const key = 'a2a-push-key-0123456789abcdef';
const access: GatewayAccess = {
  keys: [{ principal: 'dana@example.com', sha256: hashGatewayKey(key), scopes: ['start', 'send', 'read', 'approve'] }],
};
const pushKeys = a2aPushKeysFrom(randomBytes(32).toString('base64'), 'test');
const testTools = createTestTools();
/** The deploy task: one call of `echo` (behind an approval), then the answer. */
const scripts = { deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] } };
const deployer = defineAgent({ config: { name: 'deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
let env: TestEnvironment;
let gatewayA: RunningGateway;
let gatewayB: RunningGateway;
let receiver: Server;
let receiverUrl: string;

/** One notification the webhook received: which hook, its headers, its body. */
interface Received {
  hook: string;
  headers: IncomingHttpHeaders;
  body: { task?: { status?: { state?: string }; artifacts?: Array<{ parts?: unknown[] }> } };
}
const received: Received[] = [];

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [deployer],
    a2aPushKeys: pushKeys,
    scripts,
  });
  const push = { keys: pushKeys };
  gatewayA = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0, a2a: { agents: ['deployer'], push } });
  gatewayB = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0, a2a: { agents: ['deployer'], push } });
  receiver = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ hook: request.url ?? '', headers: request.headers, body: JSON.parse(text) as Received['body'] });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await gatewayA?.close();
  await gatewayB?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await env?.close();
});

/** The SDK's client for the agent on `gateway`, from its card. */
async function clientOn(gateway: RunningGateway): Promise<Client> {
  return a2aSdkClient(`${gateway.url}/a2a/deployer/`, key);
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function userMessage(text: string, taskId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId,
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function pushConfig(hook: string, fields: Partial<TaskPushNotificationConfig> = {}): TaskPushNotificationConfig {
  return { tenant: '', id: '', taskId: '', url: `${receiverUrl}/${hook}`, token: '', authentication: undefined, ...fields };
}

/** Starts a deploy task (it waits for an approval of `echo`), returning at once; `push` is given with the message. */
async function startTask(client: Client, push?: TaskPushNotificationConfig): Promise<Task> {
  const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: push, returnImmediately: true };
  const result = await client.sendMessage({ tenant: '', message: userMessage('deploy'), configuration, metadata: undefined });
  if (!('status' in result)) throw new Error('expected a task');
  return result;
}

/** The states hook `hook` received, in order. */
function statesAt(hook: string): string[] {
  return received.filter((entry) => entry.hook === `/${hook}`).map((entry) => entry.body.task?.status?.state ?? '?');
}

async function waitForStates(hook: string, last: string, timeoutMs = 45_000): Promise<string[]> {
  return eventually(() => {
    const states = statesAt(hook);
    return states.at(-1) === last && states;
  }, timeoutMs);
}

async function waitForState(client: Client, taskId: string, state: TaskState): Promise<void> {
  await eventually(async () => (await client.getTask({ tenant: '', id: taskId, historyLength: undefined })).status?.state === state, 30_000);
}

/** A history as JSON with every payload's data decoded next to it (history JSON holds payloads in base64). */
function readableHistory(history: Parameters<typeof historyToJSON>[0]): string {
  const json = historyToJSON(history);
  const decoded: string[] = [];
  JSON.parse(json, (name: string, value: unknown) => {
    if (name === 'data' && typeof value === 'string') decoded.push(Buffer.from(value, 'base64').toString('utf8'));
    return value;
  });
  return `${json}\n${decoded.join('\n')}`;
}

async function rejectionOf(promise: Promise<unknown>): Promise<{ message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { message: string };
  }
  throw new Error('expected a rejection');
}

describe('push notifications', () => {
  it('delivers the states of a task whose config was set on a gateway that then closed, in order, with the token, and no history holds the token', async () => {
    const token = `tok-${randomUUID()}`;
    const clientA = await clientOn(gatewayA);
    expect((await clientA.getAgentCard()).capabilities?.pushNotifications).toBe(true);
    const task = await startTask(clientA, pushConfig('first', { id: 'first', token }));
    await gatewayA.close();

    const clientB = await clientOn(gatewayB);
    await waitForStates('first', 'TASK_STATE_INPUT_REQUIRED');
    const listed = await clientB.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(listed.configs).toMatchObject([{ id: 'first', taskId: task.id, url: `${receiverUrl}/first`, token }]);
    await clientB.sendMessage({ tenant: '', message: userMessage('approve', task.id), configuration: undefined, metadata: undefined });

    const states = await waitForStates('first', 'TASK_STATE_COMPLETED');
    expect(states).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const deliveries = received.filter((entry) => entry.hook === '/first');
    for (const delivery of deliveries) expect(delivery.headers['x-a2a-notification-token']).toBe(token);
    expect(deliveries.at(-1)!.body.task?.artifacts?.[0]?.parts?.[0]).toMatchObject({ text: 'Done: ship it' });

    // The push workflow ends once the final state is delivered; the token is in no history.
    const pushRun = env.agents.getRun(a2aPushWorkflowId(task.id));
    const outcome = await pushRun.workflow.result();
    expect(outcome).toMatchObject({ finalState: 'TASK_STATE_COMPLETED', delivered: 4, failed: 0 });
    const readable = await Promise.all(
      [task.id, a2aPushWorkflowId(task.id)].map(async (workflowId) =>
        readableHistory(await env.client.workflow.getHandle(workflowId).fetchHistory()),
      ),
    );
    // The payloads were read (the sealed config and the task's text are there), and the token is not, in any form.
    expect(readable[1]).toContain('a2a-push-v1.');
    expect(readable[0]).toContain('ship it');
    for (const text of readable) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(Buffer.from(token).toString('base64'));
    }
    await recordHistory('a2a-push-delivery', pushRun);
  }, 90_000);

  it('creates, gets, lists and deletes configs on a task; a deleted config is sent nothing more', async () => {
    const client = await clientOn(gatewayB);
    const task = await startTask(client);
    await waitForState(client, task.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    const kept = await client.createTaskPushNotificationConfig(pushConfig('kept', { taskId: task.id, token: 'kept-token' }));
    expect(kept.id).not.toBe('');
    await client.createTaskPushNotificationConfig(
      pushConfig('dropped', { taskId: task.id, id: 'dropped', authentication: { scheme: 'Bearer', credentials: 'secret-credentials' } }),
    );
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: kept.id })).toMatchObject({
      url: `${receiverUrl}/kept`,
      token: 'kept-token',
    });
    const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((config) => config.id).sort()).toEqual([kept.id, 'dropped'].sort());

    // Each config first gets the state the task was in when it was set.
    await waitForStates('kept', 'TASK_STATE_INPUT_REQUIRED');
    await waitForStates('dropped', 'TASK_STATE_INPUT_REQUIRED');
    expect(received.find((entry) => entry.hook === '/dropped')?.headers.authorization).toBe('Bearer secret-credentials');

    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'dropped' });
    expect((await rejectionOf(client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'dropped' }))).message).toMatch(/dropped/);
    await client.sendMessage({ tenant: '', message: userMessage('approve', task.id), configuration: undefined, metadata: undefined });
    expect(await waitForStates('kept', 'TASK_STATE_COMPLETED')).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const pushRun = env.agents.getRun(a2aPushWorkflowId(task.id));
    expect(await pushRun.workflow.result()).toMatchObject({ finalState: 'TASK_STATE_COMPLETED', delivered: 4, failed: 0 });
    expect(statesAt('dropped')).toEqual(['TASK_STATE_INPUT_REQUIRED']);
    await recordHistory('a2a-push-delete', pushRun);
  }, 90_000);

  it('takes the A2A 0.3 method names over the same endpoint and posts 0.3-shaped tasks to a config set that way', async () => {
    const client = await clientOn(gatewayB);
    const task = await startTask(client);
    await waitForState(client, task.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    const legacy = async (method: string, params: Record<string, unknown>) => {
      const response = await fetch(`${gatewayB.url}/a2a/deployer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await response.json()) as { result?: { pushNotificationConfig?: { url?: string; token?: string } }; error?: unknown };
    };
    const set = await legacy('tasks/pushNotificationConfig/set', {
      taskId: task.id,
      pushNotificationConfig: { id: 'legacy', url: `${receiverUrl}/legacy`, token: 'legacy-token' },
    });
    expect(set.error).toBeUndefined();
    const got = await legacy('tasks/pushNotificationConfig/get', { id: task.id, pushNotificationConfigId: 'legacy' });
    expect(got.result?.pushNotificationConfig).toMatchObject({ url: `${receiverUrl}/legacy`, token: 'legacy-token' });
    const first = await eventually(() => received.find((entry) => entry.hook === '/legacy'));
    expect(first.headers['x-a2a-notification-token']).toBe('legacy-token');
    expect(first.body).toMatchObject({ kind: 'task', id: task.id, status: { state: 'input-required' } });
    await client.sendMessage({ tenant: '', message: userMessage('approve', task.id), configuration: undefined, metadata: undefined });
    await env.agents.getRun(a2aPushWorkflowId(task.id)).workflow.result();
    const states = received.filter((entry) => entry.hook === '/legacy').map((entry) => (entry.body as { status?: { state?: string } }).status?.state);
    expect(states).toEqual(['input-required', 'working', 'completed']);
  }, 60_000);

  it('refuses bad configs with the A2A error naming the field, storing nothing and starting nothing', async () => {
    const client = await clientOn(gatewayB);
    const task = await startTask(client);
    const create = (fields: Partial<TaskPushNotificationConfig>) =>
      client.createTaskPushNotificationConfig(pushConfig('bad', { taskId: task.id, ...fields }));
    expect((await rejectionOf(create({ taskId: 'no-such-task' }))).message).toMatch(/No task 'no-such-task'/);
    expect((await rejectionOf(create({ url: 'ftp://example.com/hook' }))).message).toMatch(/url: a webhook is an http or https URL/);
    expect((await rejectionOf(create({ url: 'http://10.1.2.3/hook' }))).message).toMatch(/private, link-local or reserved/);
    expect((await rejectionOf(create({ url: 'http://169.254.169.254/latest' }))).message).toMatch(/private, link-local or reserved/);
    expect((await rejectionOf(create({ url: 'http://[fd00::1]/hook' }))).message).toMatch(/private, link-local or reserved/);
    expect((await rejectionOf(create({ token: 'x'.repeat(5_000) }))).message).toMatch(/token: 5000 characters/);
    expect((await rejectionOf(client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'nope' }))).message).toMatch(/nope/);
    expect((await rejectionOf(client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'nope' }))).message).toMatch(/nope/);
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    await expect(env.client.workflow.getHandle(a2aPushWorkflowId(task.id)).describe()).rejects.toThrow(/not found/i);

    // A message with a bad config starts no task: only the good message after it calls the model.
    await waitForState(client, task.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    const callsBefore = env.modelCalls.length;
    expect((await rejectionOf(startTask(client, pushConfig('bad', { url: 'file:///etc/passwd' })))).message).toMatch(/url:/);
    const good = await startTask(client);
    await waitForState(client, good.id, TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(env.modelCalls.length).toBe(callsBefore + 1);
  }, 60_000);

  // Last: it stops one of the file's workers.
  it('resumes delivery on another worker after the one delivering stops, sending nothing twice', async () => {
    const second = await createTestEnvironment({
      tools: testTools.tools,
      agents: [deployer],
      a2aPushKeys: pushKeys,
      taskQueue: env.taskQueue,
      scripts,
    });
    try {
      const client = await clientOn(gatewayB);
      const task = await startTask(client, pushConfig('moved', { token: 'moved-token' }));
      await waitForStates('moved', 'TASK_STATE_INPUT_REQUIRED');
      const pushWorkflow = env.client.workflow.getHandle(a2aPushWorkflowId(task.id));
      // The worker that delivers, once its heartbeat says both notices so far were delivered (the next attempt starts from there).
      const identity = await eventually(async () => {
        const pending = (await pushWorkflow.describe()).raw.pendingActivities?.[0];
        const details = pending?.heartbeatDetails?.payloads?.[0];
        const progress = details ? defaultPayloadConverter.fromPayload<{ next: Record<string, number> }>(details) : null;
        return progress && Object.values(progress.next)[0] === 2 && pending?.lastWorkerIdentity;
      });
      const delivering = [env, second].find((candidate) => candidate.worker.options.identity === identity);
      expect(delivering).toBeDefined();
      delivering!.worker.shutdown();
      // Stopped (its activity cancelled after the grace) before the task goes on: the rest is the next attempt's.
      await eventually(() => delivering!.worker.getState() === 'STOPPED', 30_000);
      await client.sendMessage({ tenant: '', message: userMessage('approve', task.id), configuration: undefined, metadata: undefined });
      expect(await waitForStates('moved', 'TASK_STATE_COMPLETED', 60_000)).toEqual([
        'TASK_STATE_WORKING',
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_WORKING',
        'TASK_STATE_COMPLETED',
      ]);
      // The activity ran again (a second attempt) and picked up after what the first delivered.
      const started = (await pushWorkflow.fetchHistory()).events?.filter((event) => event.activityTaskStartedEventAttributes) ?? [];
      expect(started.at(-1)?.activityTaskStartedEventAttributes?.attempt).toBeGreaterThan(1);
    } finally {
      await second.close();
    }
  }, 90_000);
});
