import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
  type ClientCapabilities,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { WireName } from '../src/protocol/wire-names';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The MCP server (issue #44, item 1) on `serve`'s `/mcp`, against the real dev server and a real
 * worker, called with the official MCP TypeScript SDK client only: the exposed agents as tools, a
 * call and its structured answer, progress notes, cancellation that cancels the run, an approval
 * elicited and approved, a task left and taken up by another session, and each bad input refused
 * by MCP's error rules with nothing started.
 */

const keys = { alice: 'alice-mcp-key-0123456789', reader: 'reader-mcp-key-0123456789', bot: 'bot-mcp-key-0123456789' };
const access: GatewayAccess = {
  keys: [
    { principal: 'alice@example.com', sha256: hashGatewayKey(keys.alice), scopes: ['start', 'send', 'read', 'approve'] },
    { principal: 'reader', sha256: hashGatewayKey(keys.reader), scopes: ['read'] },
    { principal: 'greeter-bot', sha256: hashGatewayKey(keys.bot), scopes: ['start'], agents: ['greeter'] },
  ],
};
const testTools = createTestTools();
const weatherSchema = { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] };
const agentsDefined = [
  defineAgent({ config: { name: 'greeter', model: 'scripted:greet', description: 'Greets whoever writes.' } }),
  defineAgent({ config: { name: 'weather', model: 'scripted:weather', output_type: weatherSchema } }),
  defineAgent({ config: { name: 'worker', model: 'scripted:work', tools: ['progressive'] } }),
  defineAgent({ config: { name: 'waiter', model: 'scripted:wait', tools: ['gate'] } }),
  defineAgent({ config: { name: 'deployer', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } }),
  defineAgent({ config: { name: 'internal', model: 'scripted:greet', expose: ['http'] } }),
];
let env: TestEnvironment;
let gateway: RunningGateway;
const clients: Client[] = [];

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: agentsDefined,
    scripts: {
      greet: { replies: [{ text: 'Hello: {{user}}' }] },
      weather: { replies: [{ text: '{"city":"Tokyo","celsius":21}' }] },
      work: { replies: [{ toolCalls: [{ name: 'progressive', args: {} }] }, { text: 'Worked: {{tool:progressive}}' }] },
      wait: { replies: [{ toolCalls: [{ name: 'gate', args: {} }] }, { text: 'Waited: {{tool:gate}}' }] },
      deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Deployed: {{tool:echo}}' }] },
    },
  });
  gateway = await startGateway({ agents: env.agents, access, host: '127.0.0.1', port: 0, mcp: true });
});

afterAll(async () => {
  testTools.gateControl.open();
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await gateway?.close();
  await env?.close();
});

/** An MCP SDK client connected to the gateway's `/mcp` with `key`'s bearer key. */
async function connect(key: keyof typeof keys, capabilities: ClientCapabilities = {}): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${keys[key]}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The workflow id a call's first progress note names (`run <id> started`). */
function runIdOf(notes: string[]): string | undefined {
  return notes.map((note) => /^run (\S+) started$/.exec(note)?.[1]).find(Boolean);
}

describe('the MCP server on /mcp', () => {
  it('lists the agents it exposes to the caller as tools, with their schemas', async () => {
    const alice = await connect('alice');
    const { tools } = await alice.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['deployer', 'greeter', 'waiter', 'weather', 'worker']);
    const greeter = tools.find((tool) => tool.name === 'greeter')!;
    expect(greeter).toMatchObject({
      description: 'Greets whoever writes.',
      inputSchema: { type: 'object', required: ['task'], properties: { task: { type: 'string' }, threadId: { type: 'string' } } },
      execution: { taskSupport: 'optional' },
    });
    expect(tools.find((tool) => tool.name === 'weather')!.outputSchema).toEqual(weatherSchema);
    const bot = await connect('bot');
    expect((await bot.listTools()).tools.map((tool) => tool.name)).toEqual(['greeter']);
  });

  it('answers a call with the run’s answer, structured when the agent has an output schema', async () => {
    const alice = await connect('alice');
    const greeted = await alice.callTool({ name: 'greeter', arguments: { task: 'Hi from MCP' } });
    expect(greeted).toMatchObject({ content: [{ type: 'text', text: 'Hello: Hi from MCP' }] });
    expect(greeted.isError).toBeFalsy();
    const weather = await alice.callTool({ name: 'weather', arguments: { task: 'Weather in Tokyo?' } });
    expect(weather.structuredContent).toEqual({ city: 'Tokyo', celsius: 21 });
  });

  it('continues a thread when the call names one: each call a turn', async () => {
    const alice = await connect('alice');
    const threadId = `mcp-thread-${randomUUID().slice(0, 8)}`;
    const first = await alice.callTool({ name: 'greeter', arguments: { task: 'first', threadId } });
    expect(first).toMatchObject({ content: [{ text: 'Hello: first' }], _meta: { 'durable-agents/ids': { threadId, turn: 1 } } });
    const status = await env.agents.thread(threadId).status();
    expect(status).toMatchObject({ agent: 'greeter', turnsCompleted: 1 });
  });

  it('sends the run’s steps and tool calls as progress notifications', async () => {
    const alice = await connect('alice');
    const notes: string[] = [];
    const result = await alice.callTool({ name: 'worker', arguments: { task: 'Do the work' } }, undefined, {
      onprogress: (progress) => notes.push(progress.message ?? ''),
    });
    expect(result).toMatchObject({ content: [{ text: 'Worked: all parts done' }] });
    expect(notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/^run \S+ started$/), 'step 1: calling progressive', 'step 1: progressive done']),
    );
  });

  it('follows its calls through the gateway’s shared feeds, as the gateway’s own streams do', async () => {
    const alice = await connect('alice');
    const before = gateway.feeds.stats().requests;
    const notes: string[] = [];
    const result = await alice.callTool({ name: 'worker', arguments: { task: 'Do the work' } }, undefined, {
      onprogress: (progress) => notes.push(progress.message ?? ''),
    });
    expect(result).toMatchObject({ content: [{ text: 'Worked: all parts done' }] });
    expect(notes).toEqual(expect.arrayContaining(['step 1: calling progressive', 'step 1: progressive done']));
    // The call's progress came from a feed: it long-polled the history and read the events query.
    const after = gateway.feeds.stats().requests;
    expect(after.historyPolls).toBeGreaterThan(before.historyPolls);
    expect(after.eventQueries).toBeGreaterThan(before.eventQueries);
  });

  it('cancels the run when the client cancels the call', async () => {
    testTools.gateControl.reset();
    const alice = await connect('alice');
    const notes: string[] = [];
    const controller = new AbortController();
    const call = alice.callTool({ name: 'waiter', arguments: { task: 'Wait at the gate' } }, undefined, {
      signal: controller.signal,
      onprogress: (progress) => notes.push(progress.message ?? ''),
    });
    await testTools.gateControl.reached();
    const workflowId = await eventually(() => runIdOf(notes), 30_000);
    controller.abort('the user stopped it');
    await expect(call).rejects.toThrow();
    await eventually(async () => (await env.agents.getRun(workflowId).workflow.describe()).status.name === 'CANCELLED', 60_000);
    testTools.gateControl.open();
  });

  it('asks the client to approve through elicitation; its approval lets the tool run, decided as the key’s principal', async () => {
    const alice = await connect('alice', { elicitation: { form: {} } });
    const asked: string[] = [];
    alice.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
      asked.push(request.params.message);
      return { action: 'accept', content: { decision: 'approve', reason: 'looks fine' } };
    });
    const notes: string[] = [];
    const result = await alice.callTool({ name: 'deployer', arguments: { task: 'Deploy it' } }, undefined, {
      onprogress: (progress) => notes.push(progress.message ?? ''),
    });
    expect(result).toMatchObject({ content: [{ text: 'Deployed: ship it' }] });
    expect(asked).toEqual([expect.stringContaining('deployer asks to call echo with {"text":"ship it"}')]);
    const events = await env.agents.getRun(runIdOf(notes)!).workflow.query('events', 0, 500);
    expect((events as { events: Array<{ type: string }> }).events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'approval-decided', outcome: 'approved', decidedBy: 'alice@example.com', via: 'mcp' }),
      ]),
    );
  });

  it('refuses an elicitation answer outside its schema with a protocol error, and decides nothing', async () => {
    const alice = await connect('alice', { elicitation: { form: {} } });
    alice.setRequestHandler(ElicitRequestSchema, async (): Promise<ElicitResult> => ({ action: 'accept', content: { decision: 'maybe' } }));
    const notes: string[] = [];
    const call = alice.callTool({ name: 'deployer', arguments: { task: 'Deploy again' } }, undefined, {
      onprogress: (progress) => notes.push(progress.message ?? ''),
    });
    await expect(call).rejects.toMatchObject({ code: -32602 });
    const workflowId = runIdOf(notes)!;
    const status = await eventually(async () => {
      const current = await env.agents.getRun(workflowId).status();
      return current.pendingApprovals.length === 1 && current;
    });
    expect(status.pendingApprovals[0]).toMatchObject({ toolName: 'echo' });
    await env.agents.getRun(workflowId).workflow.cancel();
  });

  it('keeps the call open without elicitation until the approval is decided elsewhere', async () => {
    const alice = await connect('alice');
    const notes: string[] = [];
    const call = alice.callTool({ name: 'deployer', arguments: { task: 'Deploy from the inbox' } }, undefined, {
      onprogress: (progress) => notes.push(progress.message ?? ''),
    });
    const workflowId = await eventually(() => runIdOf(notes));
    const approvalId = await eventually(async () => (await env.agents.getRun(workflowId).status()).pendingApprovals[0]?.approvalId);
    await env.agents.getRun(workflowId).approve(approvalId, { decidedBy: 'bob@example.com' });
    expect(await call).toMatchObject({ content: [{ text: 'Deployed: ship it' }] });
    expect(notes).toContain(`approval ${approvalId} approved by bob@example.com`);
  });

  it('runs a task: the client leaves, another session comes back for its status and result', async () => {
    testTools.gateControl.reset();
    const first = await connect('alice');
    const created = await first.request(
      { method: 'tools/call', params: { name: 'waiter', arguments: { task: 'A long wait' }, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    expect(created.task).toMatchObject({ status: 'working' });
    await first.close();
    await testTools.gateControl.reached();
    const second = await connect('alice');
    expect(await second.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    testTools.gateControl.open();
    await eventually(async () => (await second.experimental.tasks.getTask(taskId)).status === 'completed', 60_000);
    const result = await second.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({ content: [{ text: 'Waited: gate passed' }] });
    expect((await env.agents.getRun(taskId).workflow.describe()).status.name).toBe('COMPLETED');
  });

  it('answers an unknown or unexposed tool and bad arguments with JSON-RPC errors, starting nothing', async () => {
    const alice = await connect('alice');
    const since = new Date().toISOString();
    for (const name of ['nobody', 'internal']) {
      const refused = await alice.callTool({ name, arguments: { task: 'Hi' } }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining(`Unknown tool: ${name}`) });
    }
    const empty = await alice.callTool({ name: 'greeter', arguments: { task: '' } }).catch((error: unknown) => error);
    expect(empty).toMatchObject({ code: -32602, message: expect.stringContaining('arguments.task') });
    const oversize = await alice.callTool({ name: 'greeter', arguments: { task: 'x'.repeat(100_001) } }).catch((error: unknown) => error);
    expect(oversize).toMatchObject({ code: -32602, message: expect.stringContaining('arguments.task: must be at most 100000 characters') });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // This file's task queue only: other test files start runs on the same server meanwhile.
    const started = await env.agents.temporal.workflow.count(
      `WorkflowType = '${WireName.agentRunWorkflow}' AND TaskQueue = '${env.agents.taskQueue}' AND StartTime > '${since}'`,
    );
    expect(started.count).toBe(0);
  });

  it('refuses malformed JSON-RPC, an oversize body and a missing key per the transport’s rules', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.alice}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    const notJson = await post('{"jsonrpc": "2.0", "method": ');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const noSession = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(noSession.status).toBe(400);
    expect(await noSession.json()).toMatchObject({ error: { code: -32600 } });
    const notRpc = await post(JSON.stringify({ hello: 'world', method: 'initialize' }));
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    const huge = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greeter', arguments: { task: 'x'.repeat(1_100_000) } } }),
    );
    expect(huge.status).toBe(413);
    const anonymous = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const otherSession = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { 'mcp-session-id': randomUUID() });
    expect(otherSession.status).toBe(404);
  });

  it('refuses a call the key’s scopes do not allow as a tool error', async () => {
    const reader = await connect('reader');
    const refused = await reader.callTool({ name: 'greeter', arguments: { task: 'Hi' } });
    expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("lacks the scope 'start'") }] });
  });
});
