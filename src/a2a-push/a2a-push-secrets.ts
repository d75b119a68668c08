// The push configs' secrets sealed with AES-256-GCM under a key the gateways and the workers share, each key known by an id derived from it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AgentConfigError } from '../protocol/errors';

/** The secrets of one push config: what the workflow must never hold in plaintext. */
export interface PushSecrets {
  token: string;
  authentication: { scheme: string; credentials: string } | null;
}

/** The keys that seal and open push secrets: the first seals, every one opens (a rotation adds the new key first). */
export interface A2aPushKeys {
  keys: ReadonlyArray<{ keyId: string; key: Buffer }>;
}

/** Where the keys come from when no option names a file: base64 of 32 random bytes each, comma-separated, the sealing key first. */
export const A2A_PUSH_KEY_VARIABLE = 'DURABLE_AGENTS_A2A_PUSH_KEY';

const SEALED_PREFIX = 'a2a-push-v1';

/** A key's id: the first 16 hex digits of the SHA-256 of the key (derived, so gateways and workers agree without a setting). */
function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('a2a-push-key').update(key).digest('hex').slice(0, 16);
}

/**
 * Push keys from their base64 text (`openssl rand -base64 32`), comma-separated, the sealing key first.
 * @throws AgentConfigError naming `source` (never the key) when one is not 32 bytes of base64.
 */
export function a2aPushKeysFrom(text: string, source: string): A2aPushKeys {
  const keys = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part, index) => {
      const key = Buffer.from(part, 'base64');
      if (key.length !== 32 || !/^[A-Za-z0-9+/=]+$/.test(part))
        throw keyError(`${source}: key ${index + 1} is not 32 bytes of base64 (make one with \`openssl rand -base64 32\`)`);
      return { keyId: keyIdOf(key), key };
    });
  if (keys.length === 0) throw keyError(`${source}: no key`);
  return { keys };
}

/**
 * The push keys of a gateway or a worker: the file `file` (base64 keys, comma- or line-separated),
 * or else `DURABLE_AGENTS_A2A_PUSH_KEY`; null when neither is set (push notifications are then off).
 * @throws AgentConfigError naming the file or the variable when it is unreadable or holds a bad key.
 * @example
 * import { readA2aPushKeys } from 'durable-agents/worker';
 *
 * const a2aPushKeys = readA2aPushKeys('/etc/agents/a2a-push.key'); // the same key as the gateways'
 */
export function readA2aPushKeys(file?: string, environment: NodeJS.ProcessEnv = process.env): A2aPushKeys | null {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw keyError(`${file}: cannot read the A2A push key file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return a2aPushKeysFrom(text.replace(/\s+/g, ','), file);
  }
  const text = environment[A2A_PUSH_KEY_VARIABLE];
  return text ? a2aPushKeysFrom(text, A2A_PUSH_KEY_VARIABLE) : null;
}

/** `secrets` sealed with the first key: `a2a-push-v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url); the key id is bound in as associated data. */
export function sealPushSecrets(secrets: PushSecrets, keys: A2aPushKeys): string {
  const { keyId, key } = keys.keys[0]!;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyId));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
  return [SEALED_PREFIX, keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/**
 * The secrets `sealed` holds.
 * @throws Error (naming the key id, never a secret) when no key of `keys` has its id or it does not open.
 */
export function openPushSecrets(sealed: string, keys: A2aPushKeys): PushSecrets {
  const [prefix, keyId, iv, tag, ciphertext] = sealed.split('.');
  if (prefix !== SEALED_PREFIX || !keyId || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed A2A push secret');
  const found = keys.keys.find((candidate) => candidate.keyId === keyId);
  if (!found) throw new Error(`the A2A push secret was sealed with key ${keyId}, which this process does not have (${A2A_PUSH_KEY_VARIABLE})`);
  const decipher = createDecipheriv('aes-256-gcm', found.key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(keyId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as PushSecrets;
  } catch {
    throw new Error(`the A2A push secret does not open with key ${keyId} (altered, or another key of that id)`);
  }
}

function keyError(message: string): AgentConfigError {
  return new AgentConfigError(message, [message]);
}
