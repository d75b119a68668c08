import http from 'node:http';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { EncryptionCodec, payloadKeysFromEnvironment } from './encryption-codec';

/**
 * A remote codec endpoint for the Temporal Web UI and CLI: POST /encode and /decode with
 * `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`, answered in the same shape.
 * It decrypts for anyone who can reach it, so it listens on loopback by default and answers
 * browsers only from the allowed origins (the Web UI's); put authentication in front of it before
 * exposing it anywhere else.
 */
export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export const DEFAULT_CODEC_PORT = 8089;

export async function startCodecServer(
  codecs: readonly PayloadCodec[],
  options: { port?: number; host?: string; allowedOrigins: readonly string[] },
): Promise<CodecServer> {
  const server = http.createServer((request, response) => {
    const origin = request.headers.origin;
    if (origin && options.allowedOrigins.includes(origin)) {
      response.setHeader('access-control-allow-origin', origin);
      response.setHeader('access-control-allow-credentials', 'true');
      response.setHeader('access-control-allow-methods', 'POST, OPTIONS');
      response.setHeader('access-control-allow-headers', 'content-type, x-namespace, authorization');
      response.setHeader('vary', 'origin');
    }
    if (request.method === 'OPTIONS') {
      response.writeHead(origin && options.allowedOrigins.includes(origin) ? 204 : 403).end();
      return;
    }
    const route = request.url?.replace(/\/+$/, '').split('?')[0];
    if (request.method !== 'POST' || (route !== '/encode' && route !== '/decode')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('POST /encode or /decode\n');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void answer(route, Buffer.concat(chunks).toString('utf8'))
        .then((body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body))
        .catch((error: unknown) =>
          response.writeHead(400, { 'content-type': 'text/plain' }).end(`${error instanceof Error ? error.message : String(error)}\n`),
        );
    });
  });

  async function answer(route: '/encode' | '/decode', body: string): Promise<string> {
    const parsed = JSON.parse(body) as { payloads?: JsonPayload[] };
    if (!Array.isArray(parsed.payloads)) throw new Error('payloads: expected a list');
    let payloads = parsed.payloads.map(fromJson);
    if (route === '/encode') for (const codec of codecs) payloads = await codec.encode(payloads);
    else for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
    return JSON.stringify({ payloads: payloads.map(toJson) });
  }

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_CODEC_PORT, host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')])),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}

/**
 * For `dev` and the demo: when AGENT_PAYLOAD_KEYS is set, a codec endpoint on loopback for the
 * local Web UI (so it shows decrypted payloads); null otherwise.
 */
export async function startLocalCodecServer(uiUrl: string): Promise<CodecServer | null> {
  const keys = payloadKeysFromEnvironment();
  if (keys.length === 0) return null;
  return startCodecServer([new EncryptionCodec(keys)], { allowedOrigins: [new URL(uiUrl).origin] });
}
