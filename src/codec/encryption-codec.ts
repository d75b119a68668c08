import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/**
 * Encrypts every payload (workflow inputs and results, activity arguments and results, signals,
 * queries, heartbeat details) with AES-256-GCM before it leaves the process, so conversations and
 * tool results are unreadable in Temporal's database. Each payload names the key that encrypted
 * it; several keys may be held so that old histories stay readable after a key rotation.
 * Payloads that are not encrypted (runs from before encryption was turned on) pass through.
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface PayloadKey {
  id: string;
  /** 32 bytes. */
  secret: Buffer;
}

const text = new TextEncoder();
const fromBytes = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

export class EncryptionCodec implements PayloadCodec {
  /** @param keys the first one encrypts; every one decrypts. */
  constructor(private readonly keys: readonly PayloadKey[]) {
    if (keys.length === 0) throw new Error('EncryptionCodec needs at least one key');
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys[0]!;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key.secret, iv);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: text.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: text.encode(key.id) }, data: sealed };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (fromBytes(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyId = fromBytes(payload.metadata?.[KEY_ID_METADATA]);
      const key = this.keys.find((candidate) => candidate.id === keyId);
      if (!key)
        throw new Error(
          `A payload was encrypted with key '${keyId}', which is not among the configured keys (${this.keys.map((known) => known.id).join(', ')})`,
        );
      const data = Buffer.from(payload.data ?? []);
      const decipher = createDecipheriv('aes-256-gcm', key.secret, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

/**
 * Keys from `AGENT_PAYLOAD_KEYS`: `id:base64key[,id:base64key...]`, each key 32 random bytes
 * (`openssl rand -base64 32`). Unset or empty: no encryption.
 * @throws Error naming the variable and the entry that is wrong.
 */
export function payloadKeysFromEnvironment(environment: NodeJS.ProcessEnv = process.env): PayloadKey[] {
  const raw = environment.AGENT_PAYLOAD_KEYS?.trim();
  if (!raw) return [];
  return raw.split(',').map((entry, index) => {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator).trim();
    const secret = Buffer.from(entry.slice(separator + 1).trim(), 'base64');
    if (separator <= 0 || !/^[\w.-]+$/.test(id))
      throw new Error(`AGENT_PAYLOAD_KEYS entry ${index + 1}: expected "<id>:<base64 key>" with an id of letters, digits, '.', '_' or '-'`);
    if (secret.length !== 32)
      throw new Error(`AGENT_PAYLOAD_KEYS entry ${index + 1} ('${id}'): the key must be 32 bytes in base64 (got ${secret.length} bytes)`);
    return { id, secret };
  });
}

/**
 * The data converter for clients and workers: AES-256-GCM encryption of every payload when
 * `AGENT_PAYLOAD_KEYS` is set, else undefined (Temporal's default). `createAgentWorker` and
 * `AgentClient.connect` use it; a worker you create yourself with `AgentPlugin` passes it, since
 * the plugin reads no environment variables.
 * @throws Error naming the entry of `AGENT_PAYLOAD_KEYS` that is malformed.
 * @example
 * import { NativeConnection, Worker } from '@temporalio/worker';
 * import { AgentPlugin, dataConverterFromEnvironment } from 'durable-agents/worker';
 *
 * const connection = await NativeConnection.connect({ address: 'localhost:7233' });
 * const worker = await Worker.create({
 *   connection,
 *   taskQueue: 'agent-runs',
 *   dataConverter: dataConverterFromEnvironment(), // the same keys as the clients'
 *   plugins: [new AgentPlugin({ tools })],
 * });
 */
export function dataConverterFromEnvironment(environment: NodeJS.ProcessEnv = process.env): { payloadCodecs: PayloadCodec[] } | undefined {
  const keys = payloadKeysFromEnvironment(environment);
  return keys.length > 0 ? { payloadCodecs: [new EncryptionCodec(keys)] } : undefined;
}
