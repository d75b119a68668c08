import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { buildTranscript, renderTranscript } from '../src/history/history-view';
import { EncryptionCodec, ENCRYPTED_ENCODING, payloadKeysFromEnvironment } from '../src/codec/encryption-codec';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { startCodecServer } from '../src/codec/codec-server';
import { findOrBuildTemporalCli } from '../src/devserver/temporal-cli';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const oldKey = { id: 'k2025', secret: randomBytes(32) };
const newKey = { id: 'k2026', secret: randomBytes(32) };
const SECRET_TASK = 'Patient 4711 has diabetes; echo their file number';
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    dataConverter: { payloadCodecs: [new EncryptionCodec([newKey, oldKey])] },
    scripts: {
      private: {
        replies: [{ toolCalls: [{ name: 'echo', args: { text: 'file-number-98765' } }] }, { text: 'Filed under {{tool:echo}}.', streamMs: 200 }],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
});

describe('payload encryption (AGENT_PAYLOAD_KEYS)', () => {
  it('round-trips payloads, passes unencrypted ones through, and reads payloads of a rotated-out key', async () => {
    const payload = defaultPayloadConverter.toPayload({ task: SECRET_TASK });
    const [sealed] = await new EncryptionCodec([oldKey]).encode([payload]);
    expect(Buffer.from(sealed!.metadata!.encoding!).toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(sealed!.data!).toString('latin1')).not.toContain('Patient');
    const rotated = new EncryptionCodec([newKey, oldKey]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([sealed!]))[0]!)).toEqual({ task: SECRET_TASK });
    expect(await rotated.decode([payload])).toEqual([payload]);
    await expect(new EncryptionCodec([newKey]).decode([sealed!])).rejects.toThrow(
      "encrypted with key 'k2025', which is not among the configured keys (k2026)",
    );
  });

  it('reads keys from the environment and names the variable when one is wrong', () => {
    const keys = payloadKeysFromEnvironment({ AGENT_PAYLOAD_KEYS: `a:${newKey.secret.toString('base64')}, b:${oldKey.secret.toString('base64')}` });
    expect(keys.map((key) => key.id)).toEqual(['a', 'b']);
    expect(payloadKeysFromEnvironment({})).toEqual([]);
    expect(() => payloadKeysFromEnvironment({ AGENT_PAYLOAD_KEYS: 'short:AAAA' })).toThrow(
      "AGENT_PAYLOAD_KEYS entry 1 ('short'): the key must be 32 bytes",
    );
    expect(() => payloadKeysFromEnvironment({ AGENT_PAYLOAD_KEYS: 'no-separator' })).toThrow(
      'AGENT_PAYLOAD_KEYS entry 1: expected "<id>:<base64 key>"',
    );
  });

  it('serves /encode and /decode for the Web UI, with CORS only for the allowed origin', async () => {
    const server = await startCodecServer([new EncryptionCodec([newKey])], { port: 0, allowedOrigins: ['http://127.0.0.1:8233'] });
    try {
      const plain = defaultPayloadConverter.toPayload({ note: SECRET_TASK });
      const asJson = {
        metadata: { encoding: Buffer.from(plain.metadata!.encoding!).toString('base64') },
        data: Buffer.from(plain.data!).toString('base64'),
      };
      const post = (route: string, body: unknown) =>
        fetch(`${server.url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:8233' },
          body: JSON.stringify(body),
        });
      const encoded = await post('/encode', { payloads: [asJson] });
      expect(encoded.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');
      const sealed = (await encoded.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      expect(Buffer.from(sealed.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
      const decoded = (await (await post('/decode', sealed)).json()) as { payloads: unknown[] };
      expect(decoded.payloads).toEqual([asJson]);
      const preflight = (origin: string) =>
        fetch(`${server.url}/decode`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      expect((await preflight('http://127.0.0.1:8233')).status).toBe(204);
      const foreign = await preflight('http://evil.example');
      expect([foreign.status, foreign.headers.get('access-control-allow-origin')]).toEqual([403, null]);
      expect((await post('/decode', { payloads: 'nope' })).status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('runs an agent whose history holds only ciphertext, readable with the key and unreadable without it', async () => {
    const run = await env.agents.startRun({ config: { name: 'private', model: 'scripted:private', tools: ['echo'] }, task: SECRET_TASK });
    const texts: string[] = [];
    for await (const snapshot of run.liveText({ pollMs: 50 })) texts.push(snapshot.text);
    expect((await run.result()).output).toBe('Filed under file-number-98765.');
    // Live text (heartbeat details) is encrypted too, and decoded by the client.
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect('Filed under file-number-98765.'.startsWith(text)).toBe(true);

    const history = await run.workflow.fetchHistory();
    const raw = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
    expect(raw).not.toContain('Patient 4711');
    expect(raw).not.toContain('file-number-98765');
    const input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    expect(input.map((payload) => Buffer.from(payload.metadata!.encoding!).toString())).toEqual([ENCRYPTED_ENCODING]);

    // Our history view decodes with the client's codec.
    expect(renderTranscript(await buildTranscript(env.client, run.workflowId))).toContain('Filed under file-number-98765.');
    // A client without the key cannot read the result.
    const connection = await Connection.connect(resolveTemporalTarget().connectionOptions);
    try {
      const plain = new Client({ connection, namespace: resolveTemporalTarget().namespace });
      await expect(plain.workflow.getHandle(run.workflowId).result()).rejects.toThrow(/binary\/encrypted/);
    } finally {
      await connection.close();
    }
    // Temporal's own CLI reads it through our codec endpoint (as the Web UI does).
    const server = await startCodecServer([new EncryptionCodec([newKey])], { port: 0, allowedOrigins: [] });
    try {
      const target = resolveTemporalTarget();
      const shown = await promisify(execFile)(await findOrBuildTemporalCli(), [
        'workflow',
        'show',
        '--address',
        target.address,
        '--namespace',
        target.namespace,
        '--workflow-id',
        run.workflowId,
        '--output',
        'json',
        '--codec-endpoint',
        server.url,
      ]);
      // JSON output carries payload data as base64.
      const payloadTexts = [...shown.stdout.matchAll(/"data": "([A-Za-z0-9+/=]+)"/g)]
        .map((match) => Buffer.from(match[1]!, 'base64').toString())
        .join('\n');
      expect(shown.stdout).not.toContain(Buffer.from(ENCRYPTED_ENCODING).toString('base64'));
      expect(payloadTexts).toContain('Patient 4711');
      expect(payloadTexts).toContain('Filed under file-number-98765.');
    } finally {
      await server.close();
    }
  });
});
