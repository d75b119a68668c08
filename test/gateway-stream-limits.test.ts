import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, type GatewayAccess } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { runCli, startServe } from './support/cli-process';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Per-process stream limits (issue #43): `streamLimits` (`serve --max-streams`,
 * `--max-streams-per-principal`) bound the streams a gateway process holds open, in all and per
 * principal. A stream beyond them answers a typed 503 / 429 naming the limit before anything is
 * asked of Temporal; a stream that ends gives its slot back; `feeds.stats()` counts them.
 */

const names = ['ana', 'ben', 'cy'] as const;
const keys = Object.fromEntries(names.map((name) => [name, `stream-limits-${name}-0123456789abcdef`])) as Record<(typeof names)[number], string>;
const access: GatewayAccess = {
  keys: names.map((name) => ({ principal: `${name}@example.com`, sha256: hashGatewayKey(keys[name]), scopes: ['read', 'start'] as const })),
};
const testTools = createTestTools();
// Waits for an approval nobody gives: its run, and every stream of it, stays open until the test ends it.
const gated = defineAgent({ config: { name: 'limits-gated', model: 'scripted:deploy', tools: ['echo'], hitl_tools: ['echo'] } });
let env: TestEnvironment;
let gateway: RunningGateway;
let runId: string;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [gated],
    scripts: { deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done' }] } },
  });
  gateway = await startGateway({
    agents: env.agents,
    access,
    host: '127.0.0.1',
    port: 0,
    streamLimits: { maxStreams: 2, maxStreamsPerPrincipal: 1 },
  });
  runId = (await env.agents.startRun({ agent: 'limits-gated', task: 'Deploy', workflowId: `limits-${randomUUID().slice(0, 8)}` })).workflowId;
});

afterAll(async () => {
  await env?.agents
    .getRun(runId)
    .workflow.terminate('test done')
    .catch(() => undefined);
  await gateway?.close();
  await env?.close();
});

/** Opens `GET /v1/runs/:id/stream` as `key`; an open stream's first bytes are read (the stream then stays open until `abort`). */
async function openStream(url: string, key: string, workflowId: string) {
  const abort = new AbortController();
  const response = await fetch(`${url}/v1/runs/${workflowId}/stream`, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal });
  if (response.ok) await response.body!.getReader().read();
  const body = response.ok ? null : ((await response.json()) as { error: Record<string, unknown> });
  return { status: response.status, body, close: () => abort.abort() };
}

describe('stream limits per gateway process', () => {
  it('refuses a stream beyond the principal’s or the process’s limit, naming it, before asking Temporal; a closed stream frees its slot', async () => {
    const first = await openStream(gateway.url, keys.ana, runId);
    expect(first.status).toBe(200);
    expect(gateway.feeds.stats().limits).toMatchObject({ maxStreams: 2, maxStreamsPerPrincipal: 1, open: 1, principals: 1 });

    // A run that does not exist: a 429 (not a 404) shows the limit was checked before any lookup.
    const second = await openStream(gateway.url, keys.ana, 'no-such-run');
    expect(second).toMatchObject({
      status: 429,
      body: {
        error: { code: 'TooManyStreams', limit: 'maxStreamsPerPrincipal', max: 1, message: expect.stringContaining('maxStreamsPerPrincipal 1') },
      },
    });

    const other = await openStream(gateway.url, keys.ben, runId);
    expect(other.status).toBe(200);
    const third = await openStream(gateway.url, keys.cy, 'no-such-run');
    expect(third).toMatchObject({
      status: 503,
      body: { error: { code: 'StreamLimitReached', limit: 'maxStreams', max: 2, message: expect.stringContaining('maxStreams 2') } },
    });
    // The refused streams started no feed: the run's one feed is shared by the two open streams.
    expect(gateway.feeds.stats()).toMatchObject({
      feeds: 1,
      limits: { open: 2, principals: 2, refused: { maxStreams: 1, maxStreamsPerPrincipal: 1 } },
    });

    // Routes that answer JSON are not streams: not limited.
    const status = await fetch(`${gateway.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${keys.cy}` } });
    expect(status.status).toBe(200);

    first.close();
    await eventually(() => gateway.feeds.stats().limits.open === 1 || undefined, 20_000);
    const again = await openStream(gateway.url, keys.cy, runId);
    expect(again.status).toBe(200);
    expect(gateway.feeds.stats().limits).toMatchObject({ open: 2, principals: 2 });
    again.close();
    other.close();
    await eventually(() => gateway.feeds.stats().limits.open === 0 || undefined, 20_000);
  });

  it('names the stream limits’ answers in the OpenAPI document, on stream routes only', async () => {
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    expect(document.paths['/v1/runs/{id}/stream']!.get.responses['429'].description).toMatch(/TooManyStreams/);
    expect(document.paths['/v1/agui']!.post.responses['503'].description).toMatch(/StreamLimitReached/);
    expect(document.paths['/v1/runs/{id}']!.get.responses['429'].description).not.toMatch(/TooManyStreams/);
  });

  it('refuses a stream request that fails before streaming without keeping its slot', async () => {
    // An unknown run answers 404 after the slot was taken: the slot is given back at once.
    const missing = await openStream(gateway.url, keys.ana, 'no-such-run');
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'RunNotFound' } } });
    expect(gateway.feeds.stats().limits.open).toBe(0);
    const open = await openStream(gateway.url, keys.ana, runId);
    expect(open.status).toBe(200);
    open.close();
    await eventually(() => gateway.feeds.stats().limits.open === 0 || undefined, 20_000);
  });
});

describe('serve --max-streams', () => {
  it('refuses a count that is not a whole number from 1, naming the flag, and limits the streams of the gateway it serves', async () => {
    const bad = await runCli(['serve', '--port', '0', '--max-streams-per-principal', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout + bad.stderr).toContain('--max-streams-per-principal');

    const serve = await startServe(['--port', '0', '--task-queue', env.taskQueue, '--max-streams', '1']);
    try {
      const url = serve.url;
      const open = await openStream(url, 'unused', runId);
      expect(open.status).toBe(200);
      const refused = await openStream(url, 'unused', runId);
      expect(refused).toMatchObject({ status: 503, body: { error: { code: 'StreamLimitReached', limit: 'maxStreams', max: 1 } } });
      open.close();
    } finally {
      await serve.stop();
    }
  });
});
