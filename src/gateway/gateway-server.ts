// Serving the gateway on its own port (`durable-agents serve`).
import { isLoopbackHost } from '../console/console-access';
import { serveFetch } from '../console/console-server';
import { assertGatewayAccessFitsHost } from './gateway-access';
import { createGatewayHandler, type GatewayOptions } from './gateway-app';
import type { GatewayFeeds } from './streams/gateway-feeds';

/** Where `startGateway` listens. */
export interface GatewayServerOptions extends Omit<GatewayOptions, 'allowAnonymous'> {
  /** Default: 127.0.0.1. Any other address needs API keys (`access.keys`). */
  host?: string;
  /** Default: 8787; 0 picks a free port. */
  port?: number;
}

/** A running gateway: its address, and how to stop it. */
export interface RunningGateway {
  url: string;
  /** Its streams' shared feeds: how many are open, what they have asked Temporal and the stream limits' counts (`stats()`). */
  feeds: GatewayFeeds;
  close(): Promise<void>;
}

/**
 * Starts the gateway's HTTP server. Without keys it serves loopback only, every caller acting as
 * `local`. The `AgentClient` stays the caller's to close.
 * @throws AgentConfigError when `host` is reachable from other machines and `access` has no keys.
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { readGatewayAccess, startGateway } from 'durable-agents/gateway';
 *
 * const gateway = await startGateway({ agents: await AgentClient.connect(), port: 8787, access: readGatewayAccess('gateway-access.yaml') });
 * process.stdout.write(`Gateway on ${gateway.url}\n`);
 */
export async function startGateway(options: GatewayServerOptions): Promise<RunningGateway> {
  const host = options.host ?? '127.0.0.1';
  const access = options.access ?? {};
  assertGatewayAccessFitsHost(host, access);
  // Webhooks on loopback are taken only from a gateway that listens on loopback itself (a developer's machine).
  const push = options.a2a?.push;
  const a2a = options.a2a && push ? { ...options.a2a, push: { ...push, allowLoopback: push.allowLoopback ?? isLoopbackHost(host) } } : options.a2a;
  const handler = createGatewayHandler({ ...options, ...(a2a ? { a2a } : {}), access, allowAnonymous: isLoopbackHost(host) });
  const server = await serveFetch(handler.fetch, host, options.port ?? 8787);
  // Streams are ended first, so the server's close does not wait for clients that keep them open.
  return { url: server.url, feeds: handler.feeds, close: () => handler.close().then(() => server.close()) };
}
