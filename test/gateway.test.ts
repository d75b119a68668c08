import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { createGatewayHandler } from '../src/gateway/gateway-app';
import { DEFAULT_MAX_BODY_BYTES } from '../src/gateway/gateway-body';
import { openApiPath } from '../src/gateway/gateway-openapi';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { AgentConfigError } from '../src/protocol/errors';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The HTTP gateway (issue #43, first slice) against the real dev server and a real worker, called
 * with Node's own `fetch`: runs by name and inline, a thread's turns, approvals decided by the
 * key's principal (two at once: one applies, the other is told who), cancel and inject, every bad
 * input with its status and code, CORS, and the OpenAPI document against the routes served.
 */

const keys = {
  alice: 'alice-key-0123456789abcdef',
  bob: 'bob-key-0123456789abcdef',
  reader: 'reader-key-0123456789abcdef',
  bot: 'bot-key-0123456789abcdef',
};
const access: GatewayAccess = {
  keys: [
    { principal: 'alice@example.com', sha256: hashGatewayKey(keys.alice), scopes: ['start', 'send', 'read', 'approve'] },
    { principal: 'bob@example.com', sha256: hashGatewayKey(keys.bob), scopes: ['read', 'approve'] },
    { principal: 'reader', sha256: hashGatewayKey(keys.reader), scopes: ['read'] },
    { principal: 'support-bot', sha256: hashGatewayKey(keys.bot), scopes: ['start', 'read'], agents: ['support'] },
  ],
  allowedOrigins: ['https://app.example.com'],
};
const testTools = createTestTools();
const support = defineAgent({ config: { name: 'support', model: 'scripted:greet' } });
const chatter = defineAgent({ config: { name: 'chatter', model: 'scripted:chat' } });
const deployer = defineAgent({ config: { name: 'deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
let env: TestEnvironment;
let gateway: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [support, chatter, deployer],
    scripts: {
      greet: { replies: [{ text: 'Hello from support: {{user}}' }] },
      chat: { replies: [{ text: 'Turn one: {{user}}' }, { text: 'Turn two: {{user}}' }] },
      deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] },
    },
  });
  gateway = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await env?.close();
});

interface Answer {
  status: number;
  body: Record<string, any>;
  headers: Headers;
}

/** One request with Node's fetch: `key` names whose key goes in the Authorization header (none when null). */
async function call(
  method: string,
  path: string,
  key: keyof typeof keys | null,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${keys[key]}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Answer['body']) : {}, headers: response.headers };
}

/** Polls a result route until it answers 200 (it answers 202 while the run or turn goes on). */
async function resultOf(path: string): Promise<Answer['body']> {
  return eventually(async () => {
    const answer = await call('GET', path, 'reader');
    if (answer.status !== 200 && answer.status !== 202) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.status === 200 && answer.body;
  }, 60_000);
}

/** Starts a `deployer` run and waits until the gateway lists its pending approval. */
async function gatedRun(): Promise<{ workflowId: string; approvalId: string }> {
  const started = await call('POST', '/v1/runs', 'alice', {
    agent: 'deployer',
    task: 'Deploy the API',
    workflowId: `gw-deploy-${randomUUID().slice(0, 8)}`,
  });
  expect(started.status).toBe(201);
  const workflowId = started.body.workflowId as string;
  const approval = await eventually(async () => {
    const listed = await call('GET', '/v1/approvals?agent=deployer', 'bob');
    return (listed.body.approvals as Array<Record<string, unknown>>).find((item) => item.workflowId === workflowId);
  }, 60_000);
  expect(approval).toMatchObject({ kind: 'run', agent: 'deployer', toolName: 'echo', args: { text: 'ship it' } });
  return { workflowId, approvalId: approval.approvalId as string };
}

describe('runs', () => {
  it('starts a run by agent name, answers 202 until it ends, then its result and status', async () => {
    const started = await call('POST', '/v1/runs', 'alice', { agent: 'support', task: 'Where is order 7?' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ workflowId: expect.stringMatching(/^support-/), runId: expect.any(String), webUiUrl: null });
    const done = await resultOf(`/v1/runs/${started.body.workflowId}/result`);
    expect(done).toMatchObject({ execution: 'completed', result: { output: 'Hello from support: Where is order 7?', stopReason: 'completed' } });
    const status = await call('GET', `/v1/runs/${started.body.workflowId}`, 'reader');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ workflowId: started.body.workflowId, runId: started.body.runId, agent: 'support', execution: 'completed' });
  });

  it('starts a run from an inline config', async () => {
    const started = await call('POST', '/v1/runs', 'alice', { config: { name: 'inline-helper', model: 'scripted:greet' }, task: 'Hi' });
    expect(started.status).toBe(201);
    expect(await resultOf(`/v1/runs/${started.body.workflowId}/result`)).toMatchObject({ result: { output: 'Hello from support: Hi' } });
  });

  it('injects into a running run, cancels it, and refuses both once it has ended', async () => {
    const { workflowId } = await gatedRun();
    const pending = await call('GET', `/v1/runs/${workflowId}/result`, 'reader');
    expect(pending).toMatchObject({ status: 202, body: { execution: 'running' } });
    const injected = await call('POST', `/v1/runs/${workflowId}/messages`, 'alice', { text: 'Also check the logs.' });
    expect(injected).toMatchObject({ status: 202, body: { workflowId, queued: true } });
    await eventually(async () => (await env.agents.getRun(workflowId).status()).queuedMessages === 1);
    const cancelled = await call('POST', `/v1/runs/${workflowId}/cancel`, 'alice');
    expect(cancelled).toMatchObject({ status: 202, body: { cancelRequested: true } });
    expect(await resultOf(`/v1/runs/${workflowId}/result`)).toMatchObject({ execution: 'cancelled', error: { code: expect.any(String) } });
    expect((await call('POST', `/v1/runs/${workflowId}/cancel`, 'alice')).body.error).toMatchObject({ code: 'RunClosed', field: 'id' });
    expect((await call('POST', `/v1/runs/${workflowId}/messages`, 'alice', { text: 'late' })).status).toBe(409);
  });
});

describe('threads', () => {
  it('creates a thread with its first message, answers a second turn, and reads status, history and each turn', async () => {
    const threadId = `gw-thread-${randomUUID().slice(0, 8)}`;
    const first = await call('POST', `/v1/threads/${threadId}/messages`, 'alice', { text: 'Hello', agent: 'chatter', messageId: 'm-1' });
    expect(first).toMatchObject({ status: 202, body: { threadId, turn: 1, messageId: 'm-1', duplicate: false } });
    expect(await resultOf(`/v1/threads/${threadId}/turns/1`)).toMatchObject({ turn: 1, result: { output: 'Turn one: Hello' } });
    const resent = await call('POST', `/v1/threads/${threadId}/messages`, 'alice', { text: 'Hello', agent: 'chatter', messageId: 'm-1' });
    // The same messageId again is answered as the first time, and adds nothing (the next message is turn 2).
    expect(resent).toMatchObject({ status: 202, body: first.body });
    const second = await call('POST', `/v1/threads/${threadId}/messages`, 'alice', { text: 'And again' });
    expect(second).toMatchObject({ status: 202, body: { turn: 2 } });
    expect(await resultOf(`/v1/threads/${threadId}/turns/2`)).toMatchObject({ result: { output: 'Turn two: And again' } });
    const status = await call('GET', `/v1/threads/${threadId}`, 'reader');
    expect(status).toMatchObject({ status: 200, body: { threadId, agent: 'chatter', turnsCompleted: 2 } });
    const history = await call('GET', `/v1/threads/${threadId}/history`, 'reader');
    expect(history.status).toBe(200);
    expect(history.body.turns).toHaveLength(2);
    expect((await call('GET', `/v1/threads/${threadId}/turns/3`, 'reader')).body.error).toMatchObject({ code: 'TurnNotFound', field: 'n' });
    expect((await call('GET', `/v1/threads/${threadId}/turns/zero`, 'reader')).body.error).toMatchObject({ code: 'InvalidRequest', field: 'n' });
  });
});

describe('approvals', () => {
  it('lists pending approvals by agent and tool, and refuses a decider named in the body', async () => {
    const { workflowId, approvalId } = await gatedRun();
    const otherTool = await call('GET', '/v1/approvals?tool=add', 'reader');
    expect((otherTool.body.approvals as Array<{ workflowId: string }>).some((item) => item.workflowId === workflowId)).toBe(false);
    const forBot = await call('GET', '/v1/approvals', 'bot');
    // The bot's key may use `support` only: the deployer's approval is not shown to it.
    expect((forBot.body.approvals as Array<{ workflowId: string }>).some((item) => item.workflowId === workflowId)).toBe(false);
    expect((forBot.body.approvals as Array<{ agent: string }>).every((item) => item.agent === 'support')).toBe(true);
    const impostor = await call('POST', `/v1/approvals/${workflowId}/${approvalId}`, 'alice', { decision: 'approve', decidedBy: 'ceo@example.com' });
    expect(impostor).toMatchObject({ status: 400, body: { error: { code: 'InvalidRequest', field: 'decidedBy' } } });
    const noScope = await call('POST', `/v1/approvals/${workflowId}/${approvalId}`, 'reader', { decision: 'approve' });
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.message).toContain("'approve'");
    const decided = await call('POST', `/v1/approvals/${workflowId}/${approvalId}`, 'alice', { decision: 'approve', reason: 'window open' });
    expect(decided).toMatchObject({ status: 200, body: { workflowId, approvalId, outcome: 'approved', decidedBy: 'alice@example.com' } });
    const retried = await call('POST', `/v1/approvals/${workflowId}/${approvalId}`, 'alice', { decision: 'approve', reason: 'window open' });
    expect(retried).toMatchObject({ status: 200, body: { outcome: 'approved', decidedBy: 'alice@example.com' } });
    const result = await resultOf(`/v1/runs/${workflowId}/result`);
    expect(result.result.output).toBe('Done: ship it');
    expect(result.result.toolResults[0].metadata.approval_decided_by).toBe('alice@example.com');
    const unknown = await call('POST', `/v1/approvals/${workflowId}/step-9.call-9`, 'alice', { decision: 'approve' });
    expect(unknown.status).toBe(404);
  });

  it('applies one of two decisions sent at once, and tells the other decider who decided', async () => {
    const before = testTools.executions.filter((execution) => execution.tool === 'echo').length;
    const { workflowId, approvalId } = await gatedRun();
    const [alice, bob] = await Promise.all([
      call('POST', `/v1/approvals/${workflowId}/${approvalId}`, 'alice', { decision: 'approve' }),
      call('POST', `/v1/approvals/${workflowId}/${approvalId}`, 'bob', { decision: 'reject', reason: 'not today' }),
    ]);
    const answers = [alice, bob];
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const winner = answers.find((answer) => answer.status === 200)!;
    const loser = answers.find((answer) => answer.status === 409)!;
    expect(loser.body.error).toMatchObject({
      code: 'AlreadyDecided',
      decidedBy: winner.body.decidedBy,
      decidedVia: 'http',
      outcome: winner.body.outcome,
    });
    expect(loser.body.error.message).toContain(`by ${winner.body.decidedBy} via http`);
    const result = await resultOf(`/v1/runs/${workflowId}/result`);
    expect(result.result.toolResults[0].metadata.approval_decided_by).toBe(winner.body.decidedBy);
    const echoes = testTools.executions.filter((execution) => execution.tool === 'echo').length - before;
    expect(echoes).toBe(winner.body.decidedBy === 'alice@example.com' ? 1 : 0);
  });

  it('lists the agents the workers offer, as far as the key may use them', async () => {
    const all = await call('GET', '/v1/agents', 'reader');
    expect((all.body.agents as Array<{ name: string }>).map((agent) => agent.name).sort()).toEqual(['chatter', 'deployer', 'support']);
    const bot = await call('GET', '/v1/agents', 'bot');
    expect((bot.body.agents as Array<{ name: string }>).map((agent) => agent.name)).toEqual(['support']);
  });
});

describe('bad input', () => {
  it('answers malformed JSON, an unknown field and a blank task with 400, naming the field', async () => {
    const malformed = await call('POST', '/v1/runs', 'alice', '{"agent": "support", "task": ');
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: 'InvalidJson', field: 'body' } } });
    const unknownField = await call('POST', '/v1/runs', 'alice', { agent: 'support', task: 'Hi', priority: 'high' });
    expect(unknownField).toMatchObject({ status: 400, body: { error: { code: 'InvalidRequest', field: 'priority' } } });
    const blank = await call('POST', '/v1/runs', 'alice', { agent: 'support', task: '  ' });
    expect(blank).toMatchObject({ status: 400, body: { error: { code: 'AgentConfigError', field: 'task' } } });
    const badConfig = await call('POST', '/v1/runs', 'alice', { config: { name: 'x', model: 'scripted:greet', temperature: 9 }, task: 'Hi' });
    expect(badConfig).toMatchObject({ status: 400, body: { error: { code: 'AgentConfigError', field: 'temperature' } } });
    const emptyMessage = await call('POST', `/v1/threads/gw-empty-${randomUUID().slice(0, 8)}/messages`, 'alice', { text: ' ', agent: 'chatter' });
    expect(emptyMessage).toMatchObject({ status: 400, body: { error: { code: 'EmptyMessage' } } });
  });

  it('refuses a body over the limit with 413 and the limit, before parsing it', async () => {
    const huge = JSON.stringify({ agent: 'support', task: 'x'.repeat(DEFAULT_MAX_BODY_BYTES) });
    const answer = await call('POST', '/v1/runs', 'alice', huge);
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'PayloadTooLarge', field: 'body', limitBytes: DEFAULT_MAX_BODY_BYTES } } });
    const overRunInput = await call('POST', '/v1/runs', 'alice', { agent: 'support', task: 'x'.repeat(1_000_100) });
    expect(overRunInput).toMatchObject({ status: 413, body: { error: { code: 'PayloadTooLarge', limitBytes: 1_000_000 } } });
  });

  it('answers 404 for an unknown run, thread, agent or route', async () => {
    for (const path of ['/v1/runs/gw-nope', '/v1/runs/gw-nope/result'])
      expect((await call('GET', path, 'reader')).body.error).toMatchObject({ code: 'RunNotFound', field: 'id' });
    expect((await call('POST', '/v1/runs/gw-nope/cancel', 'alice')).status).toBe(404);
    for (const path of ['/v1/threads/gw-nope', '/v1/threads/gw-nope/history', '/v1/threads/gw-nope/turns/1'])
      expect((await call('GET', path, 'reader')).body.error).toMatchObject({ code: 'ThreadNotFound' });
    const noThread = await call('POST', '/v1/threads/gw-nope/messages', 'alice', { text: 'Hi' });
    expect(noThread).toMatchObject({ status: 404, body: { error: { code: 'ThreadNotFound' } } });
    const noAgent = await call('POST', '/v1/runs', 'alice', { agent: 'suport', task: 'Hi' });
    expect(noAgent).toMatchObject({ status: 404, body: { error: { code: 'AgentNotFound', field: 'agent' } } });
    expect(noAgent.body.error.offered).toEqual(expect.arrayContaining([`support@${support.version}`]));
    expect((await call('DELETE', '/v1/runs/x', 'alice')).body.error).toMatchObject({ code: 'RouteNotFound' });
  });

  it('answers 409 for a workflowId already running', async () => {
    const { workflowId } = await gatedRun();
    const again = await call('POST', '/v1/runs', 'alice', { agent: 'deployer', task: 'Again', workflowId });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'RunAlreadyStarted', field: 'workflowId' } } });
    await call('POST', `/v1/runs/${workflowId}/cancel`, 'alice');
  });

  it('answers 401 without a key or with a wrong one, and 403 for a missing scope or an agent the key may not use', async () => {
    const none = await call('GET', '/v1/agents', null);
    expect(none).toMatchObject({ status: 401, body: { error: { code: 'Unauthenticated' } } });
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await fetch(`${gateway.url}/v1/agents`, { headers: { authorization: 'Bearer not-a-key-of-ours' } });
    expect(wrong.status).toBe(401);
    const noScope = await call('POST', '/v1/runs', 'reader', { agent: 'support', task: 'Hi' });
    expect(noScope).toMatchObject({ status: 403, body: { error: { code: 'Forbidden' } } });
    expect(noScope.body.error.message).toContain("'start'");
    const otherAgent = await call('POST', '/v1/runs', 'bot', { agent: 'deployer', task: 'Hi' });
    expect(otherAgent).toMatchObject({ status: 403, body: { error: { code: 'Forbidden', field: 'agent' } } });
    const inlineOther = await call('POST', '/v1/runs', 'bot', { config: { name: 'deployer', model: 'scripted:greet' }, task: 'Hi' });
    expect(inlineOther.status).toBe(403);
  });
});

describe('serving', () => {
  it('answers CORS preflights from allowed origins only', async () => {
    const preflight = (origin: string) =>
      fetch(`${gateway.url}/v1/runs`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const other = await preflight('https://evil.example.com');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses to serve other machines without keys, and serves this one as `local` without them', async () => {
    await expect(startGateway({ agents: env.agents, host: '0.0.0.0', port: 0 })).rejects.toThrow(AgentConfigError);
    expect(() => createGatewayHandler({ agents: env.agents })).toThrow(AgentConfigError);
    const local = createGatewayHandler({ agents: env.agents, allowAnonymous: true });
    const answer = await local.fetch(new Request('http://gateway.test/v1/agents'));
    expect(answer.status).toBe(200);
  });

  it('publishes a valid OpenAPI 3.1 document of exactly the routes it serves', async () => {
    const document = await call('GET', '/openapi.json', null);
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    const documented = Object.entries(document.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const handler = createGatewayHandler({ agents: env.agents, access });
    const routes = handler.routes.map((route) => `${route.method} ${openApiPath(route.path)}`);
    expect(documented.sort()).toEqual([...routes].sort());
    // Each documented operation is served: with placeholder ids, none answers "no such route".
    for (const operation of documented) {
      const [method, path] = operation.split(' ') as [string, string];
      const answer = await call(method, path.replace(/\{(\w+)\}/g, 'gw-probe'), 'reader', method === 'POST' ? {} : undefined);
      expect([operation, answer.body.error?.code]).not.toEqual([operation, 'RouteNotFound']);
    }
    // The document against the OpenAPI 3.1 schema, by a validator package (ESM only: run by Node itself).
    const check = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Validator } from '@seriousme/openapi-schema-validator'; let text = ''; for await (const chunk of process.stdin) text += chunk; const result = await new Validator().validate(JSON.parse(text)); console.log(JSON.stringify(result));",
      ],
      { input: JSON.stringify(document.body), encoding: 'utf8', cwd: process.cwd() },
    );
    expect(check.stderr).toBe('');
    expect(JSON.parse(check.stdout)).toEqual({ valid: true });
  });
});
