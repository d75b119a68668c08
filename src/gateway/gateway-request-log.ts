// One structured log line per gateway request (pino): method, route, status, principal, duration and the ids in the path, never a body unless asked.
import type { MiddlewareHandler } from 'hono';

/** Where request lines go: a pino logger fits (`pino()`, `pino(destination)`). */
export interface RequestLogger {
  info(entry: object, message: string): void;
}

/** What a route handler tells the log about its request (the middleware only sees the way in and the way out). */
export interface RequestRecord {
  /** The route's pattern (`/v1/runs/:id`), never the raw path: ids go in their own fields. */
  route: string;
  params: Record<string, string>;
  principal?: string;
  /** The parsed JSON body: logged only with `logBodies`. */
  body?: unknown;
}

/** One line of the request log. */
export interface RequestLogEntry {
  method: string;
  /** The route pattern; null when no route matched (then `path` says what was asked). */
  route: string | null;
  path?: string;
  status: number;
  /** The caller (`-` when it was not authenticated). */
  principal: string;
  durationMs: number;
  runId?: string;
  threadId?: string;
  approvalId?: string;
  turn?: string;
  /** An error answer's code (`RateLimited`, `Forbidden`, ...). */
  code?: string;
  /** The request body, only with `logBodies`: it holds message text. */
  body?: unknown;
}

const records = new WeakMap<Request, RequestRecord>();

/** Starts the record of `request` for the log (route handlers call it once they know their route). */
export function recordRequest(request: Request, route: string, params: Record<string, string>): RequestRecord {
  const record: RequestRecord = { route, params };
  records.set(request, record);
  return record;
}

/**
 * A Hono middleware writing one line per request to `logger` once its answer is made. Bodies,
 * message text and credentials stay out unless `logBodies` (the operator's `log_bodies` or
 * `--log-bodies`) adds the request body.
 */
export function requestLogMiddleware(logger: RequestLogger, options: { logBodies?: boolean } = {}): MiddlewareHandler {
  return async (context, next) => {
    const started = performance.now();
    await next();
    const record = records.get(context.req.raw);
    const status = context.res.status;
    const entry: RequestLogEntry = {
      method: context.req.method,
      route: record?.route ?? null,
      ...(record ? {} : { path: context.req.path }),
      status,
      principal: record?.principal ?? '-',
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(record ? idsOf(record) : {}),
    };
    if (status >= 400) {
      const code = await errorCodeOf(context.res);
      if (code) entry.code = code;
    }
    if (options.logBodies && record?.body !== undefined) entry.body = record.body;
    logger.info(entry, 'request');
  };
}

/** The ids a route's path names, by what they are: `:id` is a thread's under `/v1/threads`, a run's elsewhere. */
function idsOf(record: RequestRecord): Partial<RequestLogEntry> {
  const ids: Partial<RequestLogEntry> = {};
  for (const [name, value] of Object.entries(record.params)) {
    if (name === 'id') ids[record.route.startsWith('/v1/threads') ? 'threadId' : 'runId'] = value;
    else if (name === 'runId' || name === 'threadId' || name === 'approvalId') ids[name] = value;
    else if (name === 'n') ids.turn = value;
  }
  return ids;
}

/** The `error.code` of a JSON error answer (read from a copy, so the client still gets the body). */
async function errorCodeOf(response: Response): Promise<string | undefined> {
  if (!response.headers.get('content-type')?.includes('application/json')) return undefined;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}
