import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { pino } from 'pino';
import { defineAgent } from '../src/agents/define-agent';
import { hashGatewayKey, parseGatewayAccess } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { startServe } from './support/cli-process';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * The gateway's JWT bearer tokens, request limits and request log (issue #43, item 5) against the
 * real dev server and a real worker over real HTTP: tokens signed by the test with jose (HS256 with
 * a secret from the environment; RS256 and EdDSA with keys served as a JWKS by a loopback server),
 * refused with the check they failed, scopes and agent globs of tokens enforced; a key's tiny token
 * bucket answering 429 with Retry-After before Temporal is asked, then refilling; log lines without
 * message text unless `log_bodies`; and `durable-agents serve` writing them.
 */

const ISSUER = 'https://auth.example.test';
const AUDIENCE = 'durable-agents-gateway';
const SECRET_VARIABLE = 'GATEWAY_TEST_JWT_SECRET';
const SECRET = `hs256-test-secret-${randomUUID()}`;
const SECRET_MARKER = 'pineapple-on-the-invoice-7731';
const keys = { limited: 'limited-key-0123456789abcdef', other: 'other-key-0123456789abcdef', logger: 'logger-key-0123456789abcdef' };

const testTools = createTestTools();
const support = defineAgent({ config: { name: 'support', model: 'scripted:greet' } });
const billing = defineAgent({ config: { name: 'billing-eu', model: 'scripted:greet' } });
let env: TestEnvironment;
let folder: string;
let jwks: Server;
let jwksUrl: string;
const signers: Record<'RS256' | 'EdDSA', CryptoKey> = {} as Record<'RS256' | 'EdDSA', CryptoKey>;
const gateways: RunningGateway[] = [];

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'gateway-auth-'));
  process.env[SECRET_VARIABLE] = SECRET;
  env = await createTestEnvironment({
    tools: testTools.tools,
    agents: [support, billing],
    scripts: { greet: { replies: [{ text: 'Hello: {{user}}' }] } },
  });
  // A JWKS with an RSA and an Ed25519 public key, served the way an identity provider serves one.
  const published: JWK[] = [];
  for (const [alg, options] of [
    ['RS256', {}],
    ['EdDSA', { crv: 'Ed25519' }],
  ] as const) {
    const pair = await generateKeyPair(alg, options);
    signers[alg] = pair.privateKey;
    published.push({ ...(await exportJWK(pair.publicKey)), kid: `test-${alg}`, alg, use: 'sig' });
  }
  jwks = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await new Promise((resolve) => jwks?.close(resolve));
  await env?.close();
  delete process.env[SECRET_VARIABLE];
  rmSync(folder, { recursive: true, force: true });
});

/** A gateway on a free loopback port with the access file `raw` (snake_case, as in the file), closed after the file. */
async function gatewayWith(raw: Record<string, unknown>, options: Partial<Parameters<typeof startGateway>[0]> = {}): Promise<RunningGateway> {
  const gateway = await startGateway({ agents: env.agents, access: parseGatewayAccess(raw, 'test-access'), host: '127.0.0.1', port: 0, ...options });
  gateways.push(gateway);
  return gateway;
}

interface Answer {
  status: number;
  body: Record<string, any>;
  headers: Headers;
  text: string;
}

async function call(gateway: RunningGateway, method: string, route: string, bearer: string | null, body?: unknown): Promise<Answer> {
  const response = await fetch(`${gateway.url}${route}`, {
    method,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Answer['body']) : {}, headers: response.headers, text };
}

/** A token for `claims`, signed with the HS256 secret or a JWKS key. */
async function token(
  claims: Record<string, unknown>,
  options: { alg?: 'HS256' | 'RS256' | 'EdDSA'; audience?: string; expiresAt?: number } = {},
): Promise<string> {
  const alg = options.alg ?? 'HS256';
  const jwt = new SignJWT(claims)
    .setProtectedHeader(alg === 'HS256' ? { alg } : { alg, kid: `test-${alg}` })
    .setIssuer(ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.expiresAt ?? '10m');
  return jwt.sign(alg === 'HS256' ? new TextEncoder().encode(SECRET) : signers[alg]);
}

/** Polls a run's result route until it answers 200. */
async function resultOf(gateway: RunningGateway, workflowId: string, bearer: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const answer = await call(gateway, 'GET', `/v1/runs/${workflowId}/result`, bearer);
    if (answer.status !== 200 && answer.status !== 202) throw new Error(`${answer.status} ${answer.text}`);
    return answer.status === 200 && answer.body;
  }, 60_000);
}

/** A pino logger writing into `lines` (parsed), as a log shipper would read them. */
function capture(): { lines: Array<Record<string, any>>; logger: ReturnType<typeof pino> } {
  const lines: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, any>);
      done();
    },
  });
  return { lines, logger: pino(stream) };
}

describe('JWT bearer tokens', () => {
  const jwtAccess = (source: Record<string, unknown>) => ({ jwt: { issuer: ISSUER, audience: AUDIENCE, agents_claim: 'agents', ...source } });

  it('starts and reads a run with an HS256 token whose secret the file names by variable; the principal is its sub', async () => {
    const { lines, logger } = capture();
    const gateway = await gatewayWith(jwtAccess({ secret_env: SECRET_VARIABLE }), { requestLog: logger });
    const bearer = await token({ sub: 'carol@example.com', scope: 'openid start read', agents: ['*'] });
    const started = await call(gateway, 'POST', '/v1/runs', bearer, { agent: 'support', task: 'Where is order 9?' });
    expect(started.status).toBe(201);
    const done = await resultOf(gateway, started.body.workflowId as string, bearer);
    expect(done).toMatchObject({ execution: 'completed', result: { output: 'Hello: Where is order 9?' } });
    expect(await eventually(() => lines.find((line) => line.route === '/v1/runs'))).toMatchObject({ status: 201, principal: 'carol@example.com' });
  });

  it('accepts RS256 and EdDSA tokens checked with the keys of a JWKS URL', async () => {
    const gateway = await gatewayWith(jwtAccess({ jwks_url: jwksUrl }));
    for (const alg of ['RS256', 'EdDSA'] as const) {
      const bearer = await token({ sub: `svc-${alg}`, scope: ['start', 'read'], agents: ['support'] }, { alg });
      const started = await call(gateway, 'POST', '/v1/runs', bearer, { agent: 'support', task: `Signed with ${alg}` });
      expect({ alg, status: started.status }).toEqual({ alg, status: 201 });
      expect(await resultOf(gateway, started.body.workflowId as string, bearer)).toMatchObject({ result: { output: `Hello: Signed with ${alg}` } });
    }
    // An HS256 token is refused by a gateway that checks public keys (no algorithm confusion).
    const forged = await call(gateway, 'GET', '/v1/agents', await token({ sub: 'mallory', scope: 'read', agents: ['*'] }));
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatchObject({ code: 'Unauthenticated', message: expect.stringMatching(/algorithm check/) });
  });

  it('answers 503 AuthenticationUnavailable when the JWKS cannot be fetched, and nothing is started', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const gateway = await gatewayWith(jwtAccess({ jwks_url: `http://127.0.0.1:${port}/jwks.json` }));
    const bearer = await token({ sub: 'svc', scope: 'start', agents: ['*'] }, { alg: 'RS256' });
    const workflowId = `gw-jwks-down-${randomUUID().slice(0, 8)}`;
    const answer = await call(gateway, 'POST', '/v1/runs', bearer, { agent: 'support', task: 'hi', workflowId });
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ code: 'AuthenticationUnavailable', message: expect.stringContaining('jwt.jwks_url') });
    await expect(env.client.workflow.getHandle(workflowId).describe()).rejects.toMatchObject({ name: 'WorkflowNotFoundError' });
  });

  it('refuses an expired token with TokenExpired and another audience with Unauthenticated naming the check, never echoing the token', async () => {
    const gateway = await gatewayWith(jwtAccess({ secret_env: SECRET_VARIABLE, clock_tolerance_seconds: 5 }));
    const expired = await token({ sub: 'carol', scope: 'read', agents: ['*'] }, { expiresAt: Math.floor(Date.now() / 1000) - 60 });
    const late = await call(gateway, 'GET', '/v1/agents', expired);
    expect(late.status).toBe(401);
    expect(late.body.error).toMatchObject({ code: 'TokenExpired', field: 'Authorization' });
    expect(late.headers.get('www-authenticate')).toBe('Bearer');
    const elsewhere = await token({ sub: 'carol', scope: 'read', agents: ['*'] }, { audience: 'another-service' });
    const wrong = await call(gateway, 'GET', '/v1/agents', elsewhere);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ code: 'Unauthenticated', message: expect.stringMatching(/audience check/) });
    for (const [answer, sent] of [
      [late, expired],
      [wrong, elsewhere],
    ] as const)
      for (const part of sent.split('.')) expect(answer.text).not.toContain(part);
  });

  it("enforces a token's scopes and agent globs as a key's", async () => {
    const gateway = await gatewayWith(jwtAccess({ secret_env: SECRET_VARIABLE }));
    const reader = await token({ sub: 'reader', scope: 'read', agents: ['*'] });
    const refused = await call(gateway, 'POST', '/v1/runs', reader, { agent: 'support', task: 'hi' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'Forbidden', field: 'scope', message: expect.stringContaining("'start'") });

    const billingBot = await token({ sub: 'billing-bot', scope: 'start read', agents: ['billing-*'] });
    const other = await call(gateway, 'POST', '/v1/runs', billingBot, { agent: 'support', task: 'hi' });
    expect(other.status).toBe(403);
    expect(other.body.error).toMatchObject({ code: 'Forbidden', field: 'agent' });
    const own = await call(gateway, 'POST', '/v1/runs', billingBot, { agent: 'billing-eu', task: 'Invoice 12' });
    expect(own.status).toBe(201);
    expect(await resultOf(gateway, own.body.workflowId as string, billingBot)).toMatchObject({ result: { output: 'Hello: Invoice 12' } });
    // A token without the agents claim may use no agent.
    const unnamed = await call(gateway, 'GET', `/v1/runs/${own.body.workflowId}`, await token({ sub: 'x', scope: 'read' }));
    expect(unnamed.status).toBe(403);
    expect(unnamed.body.error).toMatchObject({ code: 'Forbidden', field: 'agent' });
  });
});

describe('request limits', () => {
  it('answers 429 with Retry-After once a key has used its burst, before asking Temporal, then lets it through again', async () => {
    // One request every 10 s after a burst of 2: slow enough that a busy machine still empties it.
    const gateway = await gatewayWith({
      keys: [
        { principal: 'limited', sha256: hashGatewayKey(keys.limited), scopes: ['start', 'read'], rate_limit: { requests_per_minute: 6, burst: 2 } },
        { principal: 'other', sha256: hashGatewayKey(keys.other), scopes: ['read'] },
      ],
    });
    const prefix = `gw-limit-${randomUUID().slice(0, 8)}`;
    let limited: Answer | undefined;
    let refusedId = '';
    for (let attempt = 0; attempt < 6 && !limited; attempt++) {
      const workflowId = `${prefix}-${attempt}`;
      const answer = await call(gateway, 'POST', '/v1/runs', keys.limited, { agent: 'support', task: 'count me', workflowId });
      if (answer.status === 429) [limited, refusedId] = [answer, workflowId];
      else expect(answer.status).toBe(201);
    }
    expect(limited).toBeDefined();
    expect(limited!.body.error).toMatchObject({ code: 'RateLimited', retryAfterSeconds: expect.any(Number) });
    const retryAfter = Number(limited!.headers.get('retry-after'));
    expect(retryAfter).toBe(limited!.body.error.retryAfterSeconds);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    // The refused request started nothing.
    await expect(env.client.workflow.getHandle(refusedId).describe()).rejects.toMatchObject({ name: 'WorkflowNotFoundError' });
    // Another key has its own bucket.
    expect((await call(gateway, 'GET', '/v1/agents', keys.other)).status).toBe(200);
    // The bucket refills: poll (each refused poll is answered without Temporal) until a request fits.
    const recovered = await eventually(async () => {
      const answer = await call(gateway, 'GET', `/v1/runs/${prefix}-0`, keys.limited);
      return answer.status === 429 ? false : answer;
    }, 60_000);
    expect(recovered.status).toBe(200);
  });
});

describe('request log', () => {
  const loggerKey = { principal: 'log-writer', sha256: hashGatewayKey(keys.logger), scopes: ['start', 'read'] };

  it('writes one line per request with route, status, principal, duration and ids, but no message text or key', async () => {
    const { lines, logger } = capture();
    const gateway = await gatewayWith({ keys: [loggerKey] }, { requestLog: logger });
    const started = await call(gateway, 'POST', '/v1/runs', keys.logger, { agent: 'support', task: `Please check ${SECRET_MARKER}` });
    expect(started.status).toBe(201);
    const workflowId = started.body.workflowId as string;
    await resultOf(gateway, workflowId, keys.logger);
    expect((await call(gateway, 'GET', '/v1/runs', null)).status).toBe(404);
    expect((await call(gateway, 'GET', '/v1/agents', 'not-a-key')).status).toBe(401);

    const logged = await eventually(() => (lines.length >= 4 ? lines : false), 10_000);
    expect(logged[0]).toMatchObject({
      msg: 'request',
      method: 'POST',
      route: '/v1/runs',
      status: 201,
      principal: 'log-writer',
      durationMs: expect.any(Number),
    });
    expect(logged).toContainEqual(expect.objectContaining({ method: 'GET', route: '/v1/runs/:id/result', status: 200, runId: workflowId }));
    expect(logged).toContainEqual(expect.objectContaining({ route: null, path: '/v1/runs', status: 404, principal: '-', code: 'RouteNotFound' }));
    expect(logged).toContainEqual(expect.objectContaining({ route: '/v1/agents', status: 401, principal: '-', code: 'Unauthenticated' }));
    const text = JSON.stringify(logged);
    expect(text).not.toContain(SECRET_MARKER);
    expect(text).not.toContain(keys.logger);
    expect(text).not.toContain('not-a-key');
  });

  it('puts request bodies in the lines when the access file says log_bodies', async () => {
    const { lines, logger } = capture();
    const gateway = await gatewayWith({ keys: [loggerKey], log_bodies: true }, { requestLog: logger });
    const started = await call(gateway, 'POST', '/v1/runs', keys.logger, { agent: 'support', task: `Please check ${SECRET_MARKER}` });
    expect(started.status).toBe(201);
    const line = await eventually(() => lines.find((entry) => entry.route === '/v1/runs'), 10_000);
    expect(line).toMatchObject({ status: 201, body: { agent: 'support', task: `Please check ${SECRET_MARKER}` } });
    expect(JSON.stringify(lines)).not.toContain(keys.logger);
    await resultOf(gateway, started.body.workflowId as string, keys.logger);
  });

  it('is written by `durable-agents serve --request-log`, with a token checked against the secret its access file names', async () => {
    const file = path.join(folder, 'serve-access.yaml');
    writeFileSync(file, ['jwt:', `  issuer: ${ISSUER}`, `  audience: ${AUDIENCE}`, `  secret_env: ${SECRET_VARIABLE}`].join('\n'));
    const serve = await startServe(['--port', '0', '--access', file, '--task-queue', env.taskQueue, '--request-log'], { [SECRET_VARIABLE]: SECRET });
    try {
      const url = serve.url;
      const bearer = await token({ sub: 'dana@example.com', scope: 'read' });
      const answer = await fetch(`${url}/v1/agents`, { headers: { authorization: `Bearer ${bearer}` } });
      expect(answer.status).toBe(200);
      const line = await eventually(
        () =>
          serve
            .output()
            .stdout.split('\n')
            .filter((text) => text.startsWith('{'))
            .map((text) => JSON.parse(text) as Record<string, any>)
            .find((entry) => entry.route === '/v1/agents'),
        20_000,
      );
      expect(line).toMatchObject({ msg: 'request', method: 'GET', status: 200, principal: 'dana@example.com', durationMs: expect.any(Number) });
      expect(serve.output().stdout).not.toContain(bearer);
    } finally {
      await serve.stop();
    }
  });
});

describe('the OpenAPI document', () => {
  it('lists 429 RateLimited and TokenExpired among the answers of routes that need a key or token', async () => {
    const gateway = await gatewayWith({ keys: [{ principal: 'docs', sha256: hashGatewayKey(keys.other), scopes: ['read'] }] });
    const document = (await call(gateway, 'GET', '/openapi.json', null)).body;
    const startRun = document.paths['/v1/runs'].post;
    expect(startRun.responses['429'].description).toMatch(/RateLimited/);
    expect(startRun.responses['401'].description).toMatch(/TokenExpired/);
    expect(document.paths['/openapi.json'].get.responses['429']).toBeUndefined();
  });
});
