// Serving the console: on its own port (`durable-agents console`), or as a request listener in a Node server of yours.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, serve } from '@hono/node-server';
import { assertAccessFitsHost } from './console-access';
import { buildConsole, createConsoleApp, type ConsoleOptions } from './console-app';

/** Where `startConsole` listens. */
export interface ConsoleServerOptions extends ConsoleOptions {
  /** Default: 127.0.0.1. Any other address needs sign-in (`access.tokens` or `access.trustedHeader`). */
  host?: string;
  /** Default: 4300; 0 picks a free port. */
  port?: number;
}

/** A running console: its address, and how to stop it. */
export interface RunningConsole {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the console's web server. The `AgentClient` stays the caller's to close.
 * @throws AgentConfigError when `host` is reachable from other machines and no sign-in is configured.
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { startConsole } from 'durable-agents/console';
 *
 * const agents = await AgentClient.connect();
 * const console_ = await startConsole({ agents, port: 4300 });
 * process.stdout.write(`Console on ${console_.url}\n`);
 */
export async function startConsole(options: ConsoleServerOptions): Promise<RunningConsole> {
  const host = options.host ?? '127.0.0.1';
  assertAccessFitsHost(host, options.access ?? {});
  const { app, feeds } = buildConsole(options);
  const served = await serveFetch(app.fetch, host, options.port ?? 4300);
  return {
    url: served.url,
    close: async () => {
      await feeds.stop();
      await served.close();
    },
  };
}

/**
 * Serves a Fetch-style handler on `host:port` (the console's, the gateway's) until closed. Closing
 * ends the connections still open (live pages and streams hold theirs) instead of waiting for them.
 */
export async function serveFetch(fetch: (request: Request) => Response | Promise<Response>, host: string, port: number): Promise<RunningConsole> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch, hostname: host, port }, () => resolve(started));
    started.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/**
 * The console as a Node `http` request listener, to mount in a server of yours (behind your own
 * authentication proxy, say, with `access.trustedHeader`). The console expects to own the paths
 * `/`, `/login`, `/logout`, `/assets/*`, `/inbox/*` and `/runs*`: give it its own server or
 * virtual host, or route those paths to it.
 * @example
 * import http from 'node:http';
 * import { AgentClient } from 'durable-agents';
 * import { consoleRequestListener } from 'durable-agents/console';
 *
 * const listener = consoleRequestListener({ agents: await AgentClient.connect(), access: { trustedHeader: 'X-Forwarded-User' } });
 * http.createServer(listener).listen(8080, '127.0.0.1');
 */
export function consoleRequestListener(options: ConsoleOptions): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return getRequestListener(createConsoleApp(options).fetch);
}
