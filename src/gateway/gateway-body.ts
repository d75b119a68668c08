// Reading a request's JSON body: its size capped before parsing, then checked against the route's schema.
import type { z } from 'zod';
import { ErrorCode } from '../protocol/errors';
import { GatewayError, GatewayErrorCode } from './gateway-errors';

/**
 * The largest body the gateway reads: 1 MiB. A run's whole input may hold at most 1,000,000
 * bytes of JSON (PAYLOAD_LIMIT_BYTES) and a message 100,000 characters, so nothing useful is larger.
 */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * The body as JSON, read at most `limitBytes` far: a larger `Content-Length` is refused before a
 * byte is read, and a body that grows past the limit is cut off. An empty body is `{}`.
 * @throws GatewayError 413 `PayloadTooLarge` (with `limitBytes`) or 400 `InvalidJson`.
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limitBytes) throw tooLarge(limitBytes, declared);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limitBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(limitBytes, size);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GatewayError(400, GatewayErrorCode.invalidJson, `The body is not JSON: ${error instanceof Error ? error.message : String(error)}`, {
      field: 'body',
    });
  }
}

/** @throws GatewayError 400 `InvalidRequest` naming the first field the schema refuses. */
export function checkedBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const field = [...issue.path.map(String), ...keys.slice(0, 1)].join('.') || 'body';
  throw new GatewayError(400, GatewayErrorCode.invalidRequest, `${field}: ${issue.message}`, { field });
}

function tooLarge(limitBytes: number, size: number): GatewayError {
  return new GatewayError(
    413,
    ErrorCode.payloadTooLarge,
    `body: ${size.toLocaleString('en-US')} bytes or more; the gateway reads at most ${limitBytes.toLocaleString('en-US')} bytes of a body`,
    { field: 'body', limitBytes },
  );
}
