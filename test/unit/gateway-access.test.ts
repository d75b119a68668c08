import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { assertGatewayAccessFitsHost, hashGatewayKey, newGatewayKey, parseGatewayAccess, readGatewayAccess } from '../../src/gateway/gateway-access';
import { authenticate, mayUseAgent, requireAgent, requireScope } from '../../src/gateway/gateway-auth';
import { AgentConfigError } from '../../src/protocol/errors';
import { runCli } from '../support/cli-process';

/** The gateway's access file (hashed keys, scopes, agent rules, approvers, CORS origins) and the checks made with it, without a server. */

const folder = mkdtempSync(path.join(os.tmpdir(), 'gateway-access-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const aliceKey = 'alice-key-0123456789';
const botKey = 'bot-key-0123456789';

function accessFile(name: string, text: string): string {
  const file = path.join(folder, name);
  writeFileSync(file, text);
  return file;
}

describe('the access file', () => {
  it('reads hashed keys with scopes and agent rules, approvers and allowed origins from YAML', () => {
    const file = accessFile(
      'ok.yaml',
      [
        'keys:',
        '  - principal: alice@example.com',
        `    sha256: ${hashGatewayKey(aliceKey).toUpperCase()}`,
        '    scopes: [read, approve]',
        '  - principal: ci-bot',
        `    sha256: ${hashGatewayKey(botKey)}`,
        '    scopes: [start, send]',
        '    agents: [support, "billing-*"]',
        'approvers:',
        '  - tools: [refund_*]',
        '    identities: ["*@finance.example.com"]',
        'allowed_origins: ["https://app.example.com", "http://localhost:3000"]',
      ].join('\n'),
    );
    expect(readGatewayAccess(file)).toEqual({
      keys: [
        { principal: 'alice@example.com', sha256: hashGatewayKey(aliceKey), scopes: ['read', 'approve'] },
        { principal: 'ci-bot', sha256: hashGatewayKey(botKey), scopes: ['start', 'send'], agents: ['support', 'billing-*'] },
      ],
      approvers: [{ tools: ['refund_*'], identities: ['*@finance.example.com'] }],
      allowedOrigins: ['https://app.example.com', 'http://localhost:3000'],
    });
  });

  it('reads JSON too, and an empty file as no access settings', () => {
    const json = accessFile('ok.json', JSON.stringify({ keys: [{ principal: 'p', sha256: hashGatewayKey('k'), scopes: ['admin'] }] }));
    expect(readGatewayAccess(json).keys).toHaveLength(1);
    expect(readGatewayAccess(accessFile('empty.yaml', ''))).toEqual({});
  });

  it.each([
    ['a plain key instead of its hash', { keys: [{ principal: 'p', sha256: 'not-a-hash', scopes: ['read'] }] }, 'keys.0.sha256'],
    ['an unknown scope', { keys: [{ principal: 'p', sha256: hashGatewayKey('k'), scopes: ['write'] }] }, 'keys.0.scopes.0'],
    ['no scopes', { keys: [{ principal: 'p', sha256: hashGatewayKey('k'), scopes: [] }] }, 'keys.0.scopes'],
    ['a blank principal', { keys: [{ principal: ' ', sha256: hashGatewayKey('k'), scopes: ['read'] }] }, 'keys.0.principal'],
    ['a key field it does not know', { keys: [{ principal: 'p', key: 'k', sha256: hashGatewayKey('k'), scopes: ['read'] }] }, 'keys.0'],
    ['an origin with a path', { allowed_origins: ['https://app.example.com/chat'] }, 'allowed_origins.0'],
    ['a top-level field it does not know', { tokens: [] }, '(root)'],
  ])('refuses %s, naming the file and the field', (_what, raw, field) => {
    expect(() => parseGatewayAccess(raw, 'access.yaml')).toThrow(AgentConfigError);
    try {
      parseGatewayAccess(raw, 'access.yaml');
    } catch (error) {
      expect((error as AgentConfigError).problems[0]).toContain(`access.yaml: ${field}`);
    }
  });

  it('refuses one key listed twice', () => {
    const key = { sha256: hashGatewayKey('k'), scopes: ['read'] };
    expect(() =>
      parseGatewayAccess(
        {
          keys: [
            { principal: 'a', ...key },
            { principal: 'b', ...key },
          ],
        },
        'access.yaml',
      ),
    ).toThrow(/keys.1.sha256: the same key as keys.0/);
  });

  it('names the file it cannot read or parse', () => {
    expect(() => readGatewayAccess(path.join(folder, 'missing.yaml'))).toThrow(/missing.yaml/);
    expect(() => readGatewayAccess(accessFile('bad.yaml', 'keys: [unclosed'))).toThrow(/bad.yaml/);
  });

  it('makes random keys whose hash is their sha256', () => {
    const made = newGatewayKey();
    expect(made.sha256).toBe(hashGatewayKey(made.key));
    expect(made.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(newGatewayKey().key).not.toBe(made.key);
  });

  it('refuses a host other machines reach without keys', () => {
    expect(() => assertGatewayAccessFitsHost('0.0.0.0', {})).toThrow(AgentConfigError);
    expect(() => assertGatewayAccessFitsHost('127.0.0.1', {})).not.toThrow();
    expect(() => assertGatewayAccessFitsHost('::1', {})).not.toThrow();
    expect(() =>
      assertGatewayAccessFitsHost('0.0.0.0', parseGatewayAccess({ keys: [{ principal: 'p', sha256: hashGatewayKey('k'), scopes: ['read'] }] }, 'f')),
    ).not.toThrow();
  });
});

describe('authentication and scopes', () => {
  const access = parseGatewayAccess(
    {
      keys: [
        { principal: 'alice', sha256: hashGatewayKey(aliceKey), scopes: ['read', 'approve'] },
        { principal: 'ci-bot', sha256: hashGatewayKey(botKey), scopes: ['start'], agents: ['support', 'billing-*'] },
        { principal: 'root', sha256: hashGatewayKey('root-key-0123456789'), scopes: ['admin'] },
      ],
    },
    'access.yaml',
  );

  it('finds the principal of a bearer key', () => {
    expect(authenticate(`Bearer ${aliceKey}`, access)).toMatchObject({ name: 'alice', agents: null });
    expect(authenticate(`bearer ${botKey}`, access)).toMatchObject({ name: 'ci-bot', agents: ['support', 'billing-*'] });
  });

  it('answers 401 for a missing, malformed or unknown key', () => {
    for (const header of [undefined, '', aliceKey, 'Basic YWxpY2U6eA==', 'Bearer wrong-key'])
      expect(() => authenticate(header, access)).toThrow(expect.objectContaining({ status: 401, code: 'Unauthenticated' }));
  });

  it('lets every caller in as local when there are no keys', () => {
    expect(authenticate(undefined, {}).name).toBe('local');
  });

  it('answers 403 naming a missing scope; admin has every scope', () => {
    const alice = authenticate(`Bearer ${aliceKey}`, access);
    expect(() => requireScope(alice, 'approve')).not.toThrow();
    expect(() => requireScope(alice, 'start')).toThrow(
      expect.objectContaining({ status: 403, code: 'Forbidden', message: expect.stringContaining("'start'") }),
    );
    const root = authenticate('Bearer root-key-0123456789', access);
    for (const scope of ['start', 'send', 'read', 'approve'] as const) expect(() => requireScope(root, scope)).not.toThrow();
  });

  it('keeps a key to the agents its rules name, by name or glob (a version does not matter)', () => {
    const bot = authenticate(`Bearer ${botKey}`, access);
    expect(mayUseAgent(bot, 'support')).toBe(true);
    expect(mayUseAgent(bot, 'support@3f2a9c0d1b7e')).toBe(true);
    expect(mayUseAgent(bot, 'billing-eu')).toBe(true);
    expect(mayUseAgent(bot, 'triage')).toBe(false);
    expect(mayUseAgent(bot, null)).toBe(false);
    expect(() => requireAgent(bot, 'triage')).toThrow(expect.objectContaining({ status: 403, details: { field: 'agent' } }));
    expect(mayUseAgent(authenticate(`Bearer ${aliceKey}`, access), 'triage')).toBe(true);
  });
});

describe('the CLI', () => {
  it('makes a key with `gateway hash-key`, and `serve` refuses a network host without keys, a bad access file or an unset token secret', async () => {
    const made = await runCli(['gateway', 'hash-key', '--json']);
    expect(made.code).toBe(0);
    const { key, sha256 } = JSON.parse(made.stdout) as { key: string; sha256: string };
    expect(hashGatewayKey(key)).toBe(sha256);
    const open = await runCli(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('host: 0.0.0.0 is reachable from other machines');
    const invalid = await runCli([
      'serve',
      '--access',
      accessFile('cli-bad.yaml', 'keys:\n  - principal: p\n    sha256: plain-key\n    scopes: [read]\n'),
    ]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('keys.0.sha256');
    const jwtFile = accessFile(
      'cli-jwt.yaml',
      'jwt:\n  issuer: https://auth.example.com\n  audience: gw\n  secret_env: GATEWAY_CLI_TEST_UNSET_SECRET\n',
    );
    const unset = await runCli(['serve', '--access', jwtFile], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('jwt.secret_env: the environment variable GATEWAY_CLI_TEST_UNSET_SECRET is not set');
  });
});
