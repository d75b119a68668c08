import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { a2aPushKeysFrom, openPushSecrets, readA2aPushKeys, sealPushSecrets } from '../../src/a2a-push/a2a-push-secrets';
import { refusedAddress } from '../../src/a2a/a2a-push-urls';
import { pushConfigProblem, type SealedPushConfig } from '../../src/protocol/a2a-push';

const base64Key = () => randomBytes(32).toString('base64');

describe('push secrets', () => {
  it('seals with the first key and opens with any key that has its id, never showing the secret', () => {
    const older = base64Key();
    const keys = a2aPushKeysFrom(`${base64Key()},${older}`, 'test');
    const sealed = sealPushSecrets({ token: 'the-token', authentication: { scheme: 'Bearer', credentials: 'c' } }, keys);
    expect(sealed).toMatch(/^a2a-push-v1\./);
    expect(sealed).not.toContain('the-token');
    expect(openPushSecrets(sealed, keys)).toEqual({ token: 'the-token', authentication: { scheme: 'Bearer', credentials: 'c' } });
    const sealedWithOlder = sealPushSecrets({ token: 't', authentication: null }, a2aPushKeysFrom(older, 'test'));
    expect(openPushSecrets(sealedWithOlder, keys).token).toBe('t');
    expect(() => openPushSecrets(sealed, a2aPushKeysFrom(base64Key(), 'other'))).toThrow(/does not have/);
    const [prefix, keyId, iv, tag, body] = sealed.split('.');
    const altered = [prefix, keyId, iv, tag, `${body!.startsWith('A') ? 'B' : 'A'}${body!.slice(1)}`].join('.');
    expect(() => openPushSecrets(altered, keys)).toThrow(/does not open/);
  });

  it('refuses a key that is not 32 bytes of base64, naming the source and not the key', () => {
    expect(() => a2aPushKeysFrom('c2hvcnQ=', 'DURABLE_AGENTS_A2A_PUSH_KEY')).toThrow(/DURABLE_AGENTS_A2A_PUSH_KEY: key 1 is not 32 bytes/);
    expect(readA2aPushKeys(undefined, {})).toBeNull();
    expect(readA2aPushKeys(undefined, { DURABLE_AGENTS_A2A_PUSH_KEY: base64Key() })?.keys).toHaveLength(1);
  });
});

describe('webhook addresses', () => {
  it('refuses private, link-local, unique-local and reserved addresses; loopback only when allowed', () => {
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      'fd00::1',
      'fe80::1',
      '::',
      '::ffff:10.0.0.1',
    ])
      expect(refusedAddress(address, {})).not.toBeNull();
    for (const address of ['93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8']) expect(refusedAddress(address, {})).toBeNull();
    expect(refusedAddress('127.0.0.1', {})).toMatch(/loopback/);
    expect(refusedAddress('::1', {})).toMatch(/loopback/);
    expect(refusedAddress('127.0.0.1', { allowLoopback: true })).toBeNull();
  });
});

describe('push config bounds', () => {
  const config: SealedPushConfig = { id: 'a', url: 'https://example.com/hook', wireVersion: '1.0', sealed: null, setAfterSeq: 0 };
  it('takes a config within bounds and refuses one too many, a bad url or an oversize record', () => {
    expect(pushConfigProblem(config, new Map())).toBeNull();
    const full = new Map(Array.from({ length: 10 }, (_, index) => [`c${index}`, { ...config, id: `c${index}` }]));
    expect(pushConfigProblem(config, full)).toMatch(/at most 10/);
    expect(pushConfigProblem({ ...config, id: 'c1' }, full)).toBeNull();
    expect(pushConfigProblem({ ...config, url: 'ftp://x' }, new Map())).toMatch(/^url:/);
    expect(pushConfigProblem({ ...config, sealed: 'x'.repeat(9_000) }, new Map())).toMatch(/bytes as JSON/);
  });
});
