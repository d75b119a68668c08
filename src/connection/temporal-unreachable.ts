// The error of a connection to Temporal that did not come about: it names the address, where it came from and what to do.
import net from 'node:net';
import type { TemporalTarget } from './temporal-target';

/** Why no connection came about. */
export type UnreachableReason = 'refused' | 'unknown-host' | 'no-answer' | 'failed';

/**
 * No Temporal server could be reached at the target's address (code `TemporalUnreachable`). The
 * message names the address, the setting it came from (`TEMPORAL_ADDRESS`, a config-file profile,
 * or the local default) and what to do. Not a user error in the CLI's sense: the address may be
 * right and the server down, so the CLI exits 1.
 * @example
 * import { AgentClient, TemporalUnreachableError } from 'durable-agents';
 *
 * try {
 *   await AgentClient.connect();
 * } catch (error) {
 *   if (error instanceof TemporalUnreachableError) console.error(error.message); // No Temporal server answers at 127.0.0.1:7233 (...)
 *   else throw error;
 * }
 */
export class TemporalUnreachableError extends Error {
  readonly code = 'TemporalUnreachable';

  constructor(
    message: string,
    /** The address tried, `host:port`. */
    readonly address: string,
    readonly reason: UnreachableReason,
    /** The underlying error's own message (a gRPC or socket error). */
    readonly detail: string,
  ) {
    super(message);
    this.name = 'TemporalUnreachableError';
  }
}

/** The message for people: address, its source, what happened, what to do. */
export function unreachableMessage(
  target: Pick<TemporalTarget, 'address' | 'addressSource'>,
  reason: UnreachableReason,
  detail: string,
  timeoutMs = 10_000,
): string {
  const what = {
    refused: 'connection refused (nothing listens on that port)',
    'unknown-host': 'the host name does not resolve',
    'no-answer': `no answer within ${Math.round(timeoutMs / 1000)} s (is it a Temporal frontend, and do the TLS settings match the server?)`,
    failed: detail,
  }[reason];
  const source = target.addressSource;
  const where =
    source === 'TEMPORAL_ADDRESS'
      ? ' (TEMPORAL_ADDRESS)'
      : source === 'default'
        ? ' (the default: TEMPORAL_ADDRESS is not set)'
        : source
          ? ` (${source})`
          : '';
  const todo =
    source === 'default'
      ? 'Start a local server with `npx durable-agents dev` (or `temporal server start-dev`), or set TEMPORAL_ADDRESS to your server’s host:port.'
      : source === 'TEMPORAL_ADDRESS'
        ? 'Check TEMPORAL_ADDRESS (host:port of the frontend, 7233 by default) and that the server runs, or unset it to use a local dev server.'
        : 'Check the address and that the server runs, or set TEMPORAL_ADDRESS.';
  return `No Temporal server answers at ${target.address}${where}: ${what}. ${todo}`;
}

/** The error for `target` from a probe's finding. */
export function unreachable(target: TemporalTarget, reason: UnreachableReason, detail: string): TemporalUnreachableError {
  return new TemporalUnreachableError(unreachableMessage(target, reason, detail, connectTimeoutMs(target)), target.address, reason, detail);
}

/** The error for `target` from the SDK's own connect error (grpc-js's, or the Rust core's tonic error). */
export function unreachableAfter(target: TemporalTarget, error: unknown): TemporalUnreachableError {
  return unreachable(target, classify(error), errorText(error));
}

export function connectTimeoutMs(target: TemporalTarget): number {
  // A number of ms; the SDK's string durations ('5s') are rare here and keep the SDK's default in the message.
  const configured = (target.connectionOptions as { connectTimeout?: unknown }).connectTimeout;
  return typeof configured === 'number' ? configured : 10_000;
}

/** With a proxy the server is reached through it, so a direct TCP connect proves nothing. */
export function usesProxy(target: TemporalTarget): boolean {
  const variables = ['grpc_proxy', 'https_proxy', 'http_proxy'];
  return (
    Boolean((target.connectionOptions as { proxy?: unknown }).proxy) || variables.some((name) => process.env[name] || process.env[name.toUpperCase()])
  );
}

/** Connects to `host:port` and hangs up; null when it connected (or the address is not `host:port`). */
export function tcpProbe(address: string, timeoutMs: number): Promise<{ reason: UnreachableReason; detail: string } | null> {
  const match = /^\[(.+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address);
  if (!match) return Promise.resolve(null);
  return new Promise((resolve) => {
    const socket = net.connect({ host: match[1], port: Number(match[2]) });
    socket.setTimeout(timeoutMs);
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve({ reason: 'no-answer', detail: `TCP connect timed out after ${timeoutMs} ms` });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      const reason = error.code === 'ECONNREFUSED' ? 'refused' : error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' ? 'unknown-host' : 'failed';
      resolve({ reason, detail: error.message });
    });
  });
}

/** The reason in the SDK's own errors: grpc-js's messages and the Rust core's tonic errors. */
function classify(error: unknown): UnreachableReason {
  const text = errorText(error);
  if (/ConnectionRefused|ECONNREFUSED|Connection refused/i.test(text)) return 'refused';
  if (/dns error|ENOTFOUND|EAI_AGAIN|Name or service not known|failed to lookup address/i.test(text)) return 'unknown-host';
  if (/before the deadline|timed out|deadline exceeded/i.test(text)) return 'no-answer';
  return 'failed';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
