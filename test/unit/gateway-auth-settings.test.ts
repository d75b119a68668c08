import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { assertGatewayAccessFitsHost, hashGatewayKey, parseGatewayAccess, readGatewayAccess } from '../../src/gateway/gateway-access';
import { createCallerCheck } from '../../src/gateway/gateway-auth';
import { createJwtVerifier } from '../../src/gateway/gateway-jwt';
import { RateLimiter } from '../../src/gateway/gateway-rate-limit';
import { AgentConfigError } from '../../src/protocol/errors';

/** The access file's JWT, request-limit and log settings, the token checks and the token bucket, without a server. */

const folder = mkdtempSync(path.join(os.tmpdir(), 'gateway-auth-settings-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const secretVariable = 'GATEWAY_UNIT_JWT_SECRET';
const secret = 'unit-test-secret-0123456789abcdef-0123456789';
const environment = { [secretVariable]: secret };
const jwt = { issuer: 'https://auth.example.com', audience: 'durable-agents', secret_env: secretVariable };

/** The first problem `parseGatewayAccess` reports for `raw`. */
function problemOf(raw: unknown): string {
  try {
    parseGatewayAccess(raw, 'access.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(AgentConfigError);
    return (error as AgentConfigError).problems[0]!;
  }
  throw new Error('parseGatewayAccess accepted it');
}

async function signed(
  claims: Record<string, unknown>,
  options: { key?: string; expiresIn?: string | number; issuer?: string; audience?: string } = {},
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(options.issuer ?? jwt.issuer)
    .setAudience(options.audience ?? jwt.audience)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(new TextEncoder().encode(options.key ?? secret));
}

describe('the access file: jwt, rate_limit and log_bodies', () => {
  it('reads the JWT settings with their defaults, and limits per key and for every caller', () => {
    const access = parseGatewayAccess(
      {
        jwt: { ...jwt, agents_claim: 'agents', rate_limit: { requests_per_minute: 30 } },
        rate_limit: { requests_per_minute: 120, burst: 10 },
        keys: [{ principal: 'p', sha256: 'a'.repeat(64), scopes: ['read'], rate_limit: { requests_per_minute: 6, burst: 2 } }],
        log_bodies: true,
      },
      'access.yaml',
    );
    expect(access.jwt).toEqual({
      issuer: ['https://auth.example.com'],
      audience: ['durable-agents'],
      keySource: { kind: 'secretEnv', variable: secretVariable },
      algorithms: ['HS256'],
      principalClaim: 'sub',
      scopesClaim: 'scope',
      agentsClaim: 'agents',
      clockToleranceSeconds: 30,
      rateLimit: { requestsPerMinute: 30, burst: 30 },
    });
    expect(access.rateLimit).toEqual({ requestsPerMinute: 120, burst: 10 });
    expect(access.keys?.[0]?.rateLimit).toEqual({ requestsPerMinute: 6, burst: 2 });
    expect(access.logBodies).toBe(true);
  });

  it('reads a public key file relative to the access file, and lets JWT settings alone open a non-loopback host', () => {
    const file = path.join(folder, 'jwt.yaml');
    writeFileSync(
      file,
      ['jwt:', '  issuer: [https://a.example.com, https://b.example.com]', '  audience: gw', '  public_key_file: keys/jwt.pem'].join('\n'),
    );
    const access = readGatewayAccess(file);
    expect(access.jwt?.keySource).toEqual({ kind: 'publicKeyFile', file: path.join(folder, 'keys/jwt.pem') });
    expect(access.jwt?.algorithms).toContain('RS256');
    expect(access.jwt?.algorithms).not.toContain('HS256');
    expect(() => assertGatewayAccessFitsHost('0.0.0.0', access)).not.toThrow();
  });

  it.each([
    ['a secret written in the file', { jwt: { ...jwt, secret: 'hunter2' } }, 'jwt.secret: never put the secret in the file'],
    ['no key source', { jwt: { issuer: 'i', audience: 'a' } }, 'jwt: needs where the token keys come from'],
    ['two key sources', { jwt: { ...jwt, public_key_file: 'k.pem' } }, 'jwt.secret_env: give one key source, not public_key_file and secret_env'],
    ['a JWKS over plain http to another machine', { jwt: { issuer: 'i', audience: 'a', jwks_url: 'http://idp.example.com/jwks' } }, 'jwt.jwks_url'],
    ['a public-key algorithm with a secret', { jwt: { ...jwt, algorithms: ['RS256'] } }, 'jwt.algorithms.0: RS256 needs a public key'],
    ['an unknown algorithm', { jwt: { ...jwt, algorithms: ['none'] } }, 'jwt.algorithms.0'],
    ['no audience', { jwt: { issuer: 'i', secret_env: secretVariable } }, 'jwt.audience'],
    ['a secret_env that is no variable name', { jwt: { ...jwt, secret_env: 'my secret' } }, 'jwt.secret_env'],
    ['a negative clock tolerance', { jwt: { ...jwt, clock_tolerance_seconds: -1 } }, 'jwt.clock_tolerance_seconds'],
    ['a JWT field it does not know', { jwt: { ...jwt, issuers: ['x'] } }, 'jwt'],
    ['a rate limit of zero', { rate_limit: { requests_per_minute: 0 } }, 'rate_limit.requests_per_minute'],
    ['a fractional burst', { rate_limit: { requests_per_minute: 10, burst: 1.5 } }, 'rate_limit.burst'],
    [
      'a key rate limit field it does not know',
      { keys: [{ principal: 'p', sha256: 'a'.repeat(64), scopes: ['read'], rate_limit: { rpm: 1 } }] },
      'keys.0.rate_limit',
    ],
    ['log_bodies that is not a boolean', { log_bodies: 'yes' }, 'log_bodies'],
  ])('refuses %s, naming the file and the field', (_what, raw, field) => {
    expect(problemOf(raw)).toContain(`access.yaml: ${field}`);
  });
});

describe('token checks', () => {
  const settings = parseGatewayAccess({ jwt: { ...jwt, agents_claim: 'agents' } }, 'access.yaml').jwt!;
  const verify = createJwtVerifier(settings, environment);

  it('reads the principal, our scopes (others ignored) and the agent globs of a good token', async () => {
    const principal = await verify(await signed({ sub: 'carol@example.com', scope: 'openid read send', agents: ['support'] }));
    expect(principal).toMatchObject({ name: 'carol@example.com', agents: ['support'], caller: 'token:carol@example.com' });
    expect([...principal.scopes]).toEqual(['read', 'send']);
    const listed = await verify(await signed({ sub: 'dan', scope: ['approve'] }));
    expect([...listed.scopes]).toEqual(['approve']);
    expect(listed.agents).toEqual([]); // no agents claim: no agent
  });

  it.each([
    ['an expired token', () => signed({ sub: 'x' }, { expiresIn: Math.floor(Date.now() / 1000) - 120 }), 'TokenExpired', /expired/],
    ['another audience', () => signed({ sub: 'x' }, { audience: 'someone-else' }), 'Unauthenticated', /audience check/],
    ['another issuer', () => signed({ sub: 'x' }, { issuer: 'https://evil.example.com' }), 'Unauthenticated', /issuer check/],
    ['another secret', () => signed({ sub: 'x' }, { key: 'another-secret-0123456789abcdef-0123456789' }), 'Unauthenticated', /signature check/],
    ['no principal claim', () => signed({ scope: 'read' }), 'Unauthenticated', /'sub' claim/],
  ])('refuses %s with 401 %s, saying which check failed and never quoting the token', async (_what, make, code, message) => {
    const token = await make();
    const refusal = await verify(token).then(
      () => null,
      (error: unknown) => error as { status: number; code: string; message: string },
    );
    expect(refusal).toMatchObject({ status: 401, code, message: expect.stringMatching(message) });
    expect(refusal?.message).not.toContain(token.split('.')[1]);
  });

  it('refuses a token without exp', async () => {
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(jwt.issuer)
      .setAudience(jwt.audience)
      .sign(new TextEncoder().encode(secret));
    await expect(verify(token)).rejects.toMatchObject({ status: 401, code: 'Unauthenticated', message: expect.stringMatching(/no exp/) });
  });

  it('names the missing secret variable, a short secret and an unreadable PEM file at creation', () => {
    expect(() => createJwtVerifier(settings, {})).toThrow(/jwt.secret_env: the environment variable GATEWAY_UNIT_JWT_SECRET is not set/);
    expect(() => createJwtVerifier(settings, { [secretVariable]: 'short' })).toThrow(/shorter than 32 bytes/);
    const pem = parseGatewayAccess({ jwt: { issuer: 'i', audience: 'a', public_key_file: path.join(folder, 'none.pem') } }, 'f').jwt!;
    expect(() => createJwtVerifier(pem)).toThrow(/jwt.public_key_file: cannot read a PEM public key/);
    const { publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(path.join(folder, 'ok.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    const good = parseGatewayAccess({ jwt: { issuer: 'i', audience: 'a', public_key_file: path.join(folder, 'ok.pem') } }, 'f').jwt!;
    expect(typeof createJwtVerifier(good)).toBe('function');
  });
});

describe('request limits', () => {
  it('lets a burst through, refuses the next with the seconds until one fits, and refills', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(() => now);
    const limit = { requestsPerMinute: 6, burst: 2 }; // one request every 10 s
    limiter.take('key:a', limit);
    limiter.take('key:a', limit);
    expect(() => limiter.take('key:a', limit)).toThrow(
      expect.objectContaining({ status: 429, code: 'RateLimited', details: { retryAfterSeconds: 10 } }),
    );
    limiter.take('key:b', limit); // another caller has its own bucket
    now += 4_000;
    expect(() => limiter.take('key:a', limit)).toThrow(expect.objectContaining({ details: { retryAfterSeconds: 6 } }));
    now += 6_000;
    expect(() => limiter.take('key:a', limit)).not.toThrow();
    now += 60_000;
    limiter.take('key:a', limit);
    limiter.take('key:a', limit);
    expect(() => limiter.take('key:a', limit)).toThrow(expect.objectContaining({ code: 'RateLimited' }));
  });

  it('limits a key and a token principal each by its own limit, falling back to the default', async () => {
    const access = parseGatewayAccess(
      {
        jwt: { ...jwt, rate_limit: { requests_per_minute: 1, burst: 1 } },
        rate_limit: { requests_per_minute: 1, burst: 2 },
        keys: [{ principal: 'p', sha256: hashGatewayKey('known-key-0123456789'), scopes: ['read'] }],
      },
      'access.yaml',
    );
    const check = createCallerCheck(access, environment);
    await expect(check('Bearer unknown-key-0123456789')).rejects.toMatchObject({ status: 401 });
    const key = 'Bearer known-key-0123456789';
    await expect(check(key)).resolves.toMatchObject({ name: 'p' });
    await expect(check(key)).resolves.toMatchObject({ name: 'p' });
    await expect(check(key)).rejects.toMatchObject({ status: 429, details: { retryAfterSeconds: 60 } });
    const token = `Bearer ${await signed({ sub: 'erin', scope: 'read' })}`;
    await expect(check(token)).resolves.toMatchObject({ name: 'erin' });
    await expect(check(token)).rejects.toMatchObject({ status: 429, code: 'RateLimited' });
    const other = `Bearer ${await signed({ sub: 'frank', scope: 'read' })}`;
    await expect(check(other)).resolves.toMatchObject({ name: 'frank' });
  });
});
