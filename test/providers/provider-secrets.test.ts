import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client/agent-client';
import { resolveTemporalTarget } from '../../src/connection/temporal-target';
import { historyText } from '../support/history-bytes';
import { openAiReply, startFakeProviderServer, type FakeProviderServer } from '../support/fake-provider-server';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

/**
 * The key lives in the worker process's environment only: not in inputs, histories, failures or
 * the worker's own logs (debug level), even when the server echoes it in an error. This worker
 * has streaming off, so its runs also cover the non-streaming wire format end to end.
 */
const CANARY = `sk-canary-${randomUUID()}`;
let server: FakeProviderServer;
let connection: Connection;
let agents: AgentClient;
let worker: WorkerProcess;

beforeAll(async () => {
  server = await startFakeProviderServer();
  const target = resolveTemporalTarget();
  connection = await Connection.connect(target.connectionOptions);
  agents = new AgentClient(new Client({ connection, namespace: target.namespace }), { taskQueue: `secrets-${randomUUID()}` });
  worker = await startWorkerProcess(agents.taskQueue, {
    OPENAI_API_KEY: CANARY,
    OPENAI_BASE_URL: `${server.baseUrl}/v1`,
    LOG_LEVEL: 'debug',
    AGENT_MODEL_STREAMING: 'off',
  });
});

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await connection?.close();
  await server?.close();
});

describe('an API key in the worker environment', () => {
  it('is used for calls but never reaches a history, a failure or a log line', async () => {
    server.respond(
      openAiReply({ toolCalls: [{ id: 'call_w', name: 'get_weather', args: { city: 'Oslo' } }] }),
      openAiReply({ text: 'Oslo: fine.' }),
      { status: 401, body: { error: { message: `Incorrect API key provided: ${CANARY}.` } } },
    );
    const good = await agents.startRun({ config: { name: 'keyed', model: 'openai:gpt-4o-mini', tools: ['get_weather'] }, task: 'Weather in Oslo?' });
    expect((await good.result()).output).toBe('Oslo: fine.');
    const bad = await agents.startRun({ config: { name: 'keyed', model: 'openai:gpt-4o-mini' }, task: 'Again' });
    const failure = await bad.result().then(
      () => null,
      (error: Error & { cause?: Error }) => error.cause?.message ?? '',
    );
    expect(failure).toContain('Incorrect API key provided: [redacted].');
    expect(server.requests.every((request) => request.headers.authorization === `Bearer ${CANARY}` && request.body.stream === undefined)).toBe(true);
    for (const run of [good, bad]) expect(await historyText(run)).not.toContain(CANARY);
    expect(worker.output()).toContain('Activity failed');
    expect(worker.output()).not.toContain(CANARY);
  });
});
