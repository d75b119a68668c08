// The gateway as a request handler: a Hono app over the route table, with CORS, keys and one error shape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { AgentClient } from '../client/agent-client';
import { AgentConfigError } from '../protocol/errors';
import { gatewayChecksCallers, type GatewayAccess } from './gateway-access';
import { createCallerCheck, requireScope, LOCAL_PRINCIPAL } from './gateway-auth';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from './gateway-body';
import { errorReplyOf, GatewayError, GatewayErrorCode } from './gateway-errors';
import type { GatewayRoute } from './gateway-route';
import { recordRequest, requestLogMiddleware, type RequestLogger } from './gateway-request-log';
import { GATEWAY_ROUTES } from './gateway-routes';
import { GatewayFeeds } from './streams/gateway-feeds';
import { releasingStream, type GatewayStreamLimits } from './streams/stream-limits';
import { createMcpDoor, type McpDoor } from '../mcp-server/mcp-http-door';
import { mountA2a, type A2aServerOptions } from '../a2a/a2a-routes';

/** What a gateway serves and who may call it. */
export interface GatewayOptions {
  /** The client every route uses (its task queue is where runs start). Stays the caller's to close. */
  agents: AgentClient;
  /** API keys, JWT settings, request limits, approver rules and CORS origins (docs/gateway.md). Default: none. */
  access?: GatewayAccess;
  /**
   * Serve without keys, every caller acting as principal `local` with every scope. Only for a
   * gateway nothing but this machine reaches: `startGateway` sets it on a loopback host.
   */
  allowAnonymous?: boolean;
  /** The largest request body read, in bytes (default 1 MiB): larger ones answer 413 before parsing. */
  maxBodyBytes?: number;
  /** Where a plain line per request (method, path, status, principal; never a body) and internal errors go. Default: nowhere. */
  log?: (line: string) => void;
  /**
   * Where a structured line per request goes (method, route pattern, status, principal, duration,
   * ids; never a body unless `logBodies`): a pino logger. Default: none.
   */
  requestLog?: RequestLogger;
  /** Put request bodies (message text) in `requestLog`'s lines. Default: the access file's `log_bodies`, else off. */
  logBodies?: boolean;
  /**
   * The key that signs each decision's proof of the caller's principal (`serve --decision-key`), for
   * agents with `require_verified_decisions` (docs/gateway.md, "Verified decisions"). Default: none, decisions go unsigned.
   */
  decisionKey?: DecisionSigningKey;
  /**
   * The path the handler is mounted under, such as `/api/agents` for a Next.js route at
   * `app/api/agents/[...path]/route.ts`: its routes are then `/api/agents/v1/...` and
   * `/api/agents/openapi.json`. Fetch-style mounts hand the handler the whole URL, so the prefix
   * must be known here. Default: none (the routes are at the root).
   */
  basePath?: string;
  /**
   * Serve the MCP server at `/mcp` (streamable HTTP, the same keys, scopes and limits;
   * docs/interop.md): `true`, or `{ exposed }` to offer only the agents named. Default: off.
   */
  mcp?: boolean | { exposed?: readonly string[] };
  /**
   * Serve these named agents over A2A too, at `/a2a/<agent>` (JSON-RPC) with a card at
   * `/a2a/<agent>/.well-known/agent-card.json`, behind the same keys and scopes (docs/interop.md, "A2A").
   * Default: no A2A server.
   */
  a2a?: A2aServerOptions;
  /**
   * The most streams (UI message streams, AG-UI runs) this process holds open, in all and per
   * principal (`serve --max-streams`, `--max-streams-per-principal`): a stream request beyond them
   * answers 503 `StreamLimitReached` or 429 `TooManyStreams` before any Temporal call. Default: no limits.
   */
  streamLimits?: GatewayStreamLimits;
}

/** The gateway as handlers for a server of yours: Fetch-style (Next.js, Hono, Bun, Deno) or Node's `http`. */
export interface GatewayHandler {
  fetch(request: Request): Promise<Response>;
  node(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The routes it serves (what its OpenAPI document describes). */
  routes: readonly GatewayRoute[];
  /** The shared feeds behind its streams: how many are open, what they have asked Temporal, and the stream limits' counts. */
  feeds: GatewayFeeds;
  /** Ends every open stream and waits for their last Temporal calls. */
  close(): Promise<void>;
}

/**
 * The gateway's JSON API over runs, threads and approvals (docs/gateway.md), to mount in a server
 * of yours or to serve with `startGateway`. It holds no state: any number of them may serve the
 * same namespace behind a load balancer.
 * @throws AgentConfigError when `access` has no keys and `allowAnonymous` is not set, or `basePath` is not a path.
 * @example
 * // app/api/agents/[...path]/route.ts in Next.js
 * import { AgentClient } from 'durable-agents';
 * import { createGatewayHandler, readGatewayAccess } from 'durable-agents/gateway';
 *
 * const gateway = createGatewayHandler({
 *   agents: await AgentClient.connect(),
 *   access: readGatewayAccess('gateway-access.yaml'),
 *   basePath: '/api/agents',
 * });
 * export const GET = gateway.fetch;
 * export const POST = gateway.fetch;
 */
export function createGatewayHandler(options: GatewayOptions): GatewayHandler {
  const access = options.access ?? {};
  if (!gatewayChecksCallers(access) && !options.allowAnonymous) {
    const problem = 'access.keys: a gateway without API keys or jwt settings needs allowAnonymous (only for one nothing but this machine reaches)';
    throw new AgentConfigError(`The gateway refuses to serve without API keys: ${problem}`, [problem]);
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const feeds = new GatewayFeeds(options.agents.temporal, options.agents.namespace, options.streamLimits);
  const checkCaller = createCallerCheck(access);
  const app = new Hono().basePath(checkedBasePath(options.basePath));
  if (options.requestLog) app.use('*', requestLogMiddleware(options.requestLog, { logBodies: options.logBodies ?? access.logBodies ?? false }));
  const origins = access.allowedOrigins ?? [];
  if (origins.length > 0)
    app.use(
      '*',
      cors({
        origin: (origin) => (origins.includes(origin) ? origin : null),
        allowMethods: ['GET', 'POST'],
        allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID'],
        maxAge: 600,
      }),
    );
  if (options.a2a)
    mountA2a(
      app,
      {
        agents: options.agents,
        access,
        checkCaller,
        feeds,
        maxBodyBytes,
        decisionKey: options.decisionKey,
        basePath: checkedBasePath(options.basePath).replace(/^\/$/, ''),
        log: options.log,
      },
      options.a2a,
    );
  for (const route of GATEWAY_ROUTES) {
    app.on(route.method, route.path, async (context) => {
      let principalName = '-';
      let release: (() => void) | null = null;
      const params = context.req.param() as Record<string, string>;
      const record = recordRequest(context.req.raw, route.path, params);
      try {
        const principal = route.scope ? await checkCaller(context.req.header('authorization')) : LOCAL_PRINCIPAL;
        principalName = record.principal = principal.name;
        if (route.scope) requireScope(principal, route.scope);
        // A stream's slot is taken before its body is read or Temporal is asked anything.
        release = route.streams ? feeds.limiter.acquire(principal.name) : null;
        const body = route.method === 'POST' ? await readJsonBody(context.req.raw, maxBodyBytes) : {};
        record.body = body;
        const query = new URL(context.req.url).searchParams;
        const request = context.req.raw;
        const reply = await route.handle({
          agents: options.agents,
          access,
          principal,
          params,
          query,
          body,
          headers: request.headers,
          signal: request.signal,
          feeds,
          decisionKey: options.decisionKey,
        });
        if ('stream' in reply) {
          options.log?.(`${context.req.method} ${context.req.path} ${reply.status} ${principalName} (stream)`);
          const stream = release ? releasingStream(reply.stream, release) : reply.stream;
          return new Response(stream, { status: reply.status, headers: reply.headers });
        }
        release?.();
        return answer(context, reply.status, reply.body, principalName, options.log);
      } catch (error) {
        release?.();
        return failure(context, error, principalName, options.log);
      }
    });
  }
  const mcp = mcpDoorOf(options, checkCaller, maxBodyBytes, feeds);
  if (mcp) app.on(['GET', 'POST', 'DELETE'], '/mcp', (context) => mcp.fetch(context.req.raw));
  app.notFound((context) =>
    failure(
      context,
      new GatewayError(404, GatewayErrorCode.routeNotFound, `No route ${context.req.method} ${context.req.path}: see /openapi.json`),
      '-',
      options.log,
    ),
  );
  app.onError((error, context) => failure(context, error, '-', options.log));
  const fetch = async (request: Request): Promise<Response> => app.fetch(request);
  const listener = getRequestListener(fetch);
  const close = async () => {
    await mcp?.close();
    await feeds.close();
  };
  return { fetch, node: async (request, response) => listener(request, response), routes: GATEWAY_ROUTES, feeds, close };
}

/** The MCP door the options ask for, sharing the gateway's caller check (so one request limit counts both). */
function mcpDoorOf(
  options: GatewayOptions,
  checkCaller: ReturnType<typeof createCallerCheck>,
  maxBodyBytes: number,
  feeds: GatewayFeeds,
): McpDoor | null {
  if (!options.mcp) return null;
  const exposed = options.mcp === true ? undefined : options.mcp.exposed;
  return createMcpDoor({
    agents: options.agents,
    access: options.access ?? {},
    checkCaller,
    maxBodyBytes,
    feeds,
    ...(exposed ? { exposed } : {}),
    ...(options.decisionKey ? { decisionKey: options.decisionKey } : {}),
  });
}

/** A mount prefix as Hono takes it: `''` or `/a/b` (one leading slash, none trailing). */
function checkedBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '/';
  if (!/^(\/[A-Za-z0-9._~-]+)+\/?$/.test(basePath)) {
    const problem = `basePath: ${JSON.stringify(basePath)} is not a path such as /api/agents (segments of letters, digits, . _ ~ -)`;
    throw new AgentConfigError(`The gateway cannot mount under this path: ${problem}`, [problem]);
  }
  return basePath.replace(/\/$/, '');
}

function answer(
  context: Context,
  status: number,
  body: unknown,
  principal: string,
  log: GatewayOptions['log'],
  extra: Record<string, string> = {},
): Response {
  log?.(`${context.req.method} ${context.req.path} ${status} ${principal}`);
  if (status === 204) return new Response(null, { status, headers: extra });
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...extra } });
}

function failure(context: Context, error: unknown, principal: string, log: GatewayOptions['log']): Response {
  const reply = errorReplyOf(error);
  if (reply.internal)
    log?.(`${context.req.method} ${context.req.path} internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const extra: Record<string, string> = reply.status === 401 ? { 'www-authenticate': 'Bearer' } : {};
  if (reply.body.error.retryAfterSeconds !== undefined) extra['retry-after'] = String(reply.body.error.retryAfterSeconds);
  return answer(context, reply.status, reply.body, principal, log, extra);
}
