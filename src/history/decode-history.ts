import type { Payload, PayloadCodec } from '@temporalio/common';

/**
 * Runs every payload of a fetched history through the client's payload codecs (in place), so
 * readers that use the plain payload converter (the `history` view) see decoded values. With no
 * codecs this does nothing.
 */
export async function decodeHistoryPayloads<T extends object>(history: T, codecs: readonly PayloadCodec[]): Promise<T> {
  if (codecs.length === 0) return history;
  await visit(history, codecs);
  return history;
}

function isPayload(value: unknown): value is Payload {
  return Boolean(value) && typeof value === 'object' && 'metadata' in (value as object) && 'data' in (value as object);
}

async function decode(payload: Payload, codecs: readonly PayloadCodec[]): Promise<Payload> {
  let payloads = [payload];
  for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
  return payloads[0]!;
}

async function visit(node: unknown, codecs: readonly PayloadCodec[]): Promise<void> {
  if (!node || typeof node !== 'object' || ArrayBuffer.isView(node)) return;
  const container = node as Record<string, unknown>;
  for (const key of Object.keys(container)) {
    const child = container[key];
    if (isPayload(child)) container[key] = await decode(child, codecs);
    else if (Array.isArray(child)) {
      for (let index = 0; index < child.length; index++) {
        if (isPayload(child[index])) child[index] = await decode(child[index] as Payload, codecs);
        else await visit(child[index], codecs);
      }
    } else await visit(child, codecs);
  }
}
