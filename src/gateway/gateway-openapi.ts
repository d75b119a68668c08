// The gateway's OpenAPI 3.1 document, built from its route table so the two never disagree.
import { z } from 'zod';
import type { GatewayRoute } from './gateway-route';
import { errorBodySchema } from './gateway-schemas';

/** `/v1/runs/:id` → `/v1/runs/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** A zod schema as the JSON Schema (2020-12, which OpenAPI 3.1 uses) of a document's component. */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

/** The answers every route may give besides its own, by status. */
const sharedErrors: Record<number, string> = {
  400: 'Bad input: InvalidJson, InvalidRequest (field), AgentConfigError (problems), InvalidMessage, EmptyMessage',
  404: 'An unknown run, thread, agent or approval',
  413: 'PayloadTooLarge: the body (or the run input) is over its limit (limitBytes)',
  500: 'InternalError',
  503: 'Temporal, its workers or the token keys unavailable: TemporalUnavailable, WorkersUnavailable, AuthenticationUnavailable',
};

const authErrors: Record<number, string> = {
  401: 'Unauthenticated: no API key or token, an unknown key, or a token failing a check (named); TokenExpired: a token past its exp',
  403: 'Forbidden: the key or token lacks the scope the route needs (named), or may not use this agent',
  429: "RateLimited: the caller's request limit is used up; retry after retryAfterSeconds (the Retry-After header)",
};

/** What a stream route answers besides, when the gateway has stream limits (`streamLimits`). */
const streamErrors: Record<number, string> = {
  429: `${authErrors[429]}; TooManyStreams: the caller holds as many streams open on this gateway process as maxStreamsPerPrincipal allows (limit, max)`,
  503: `${sharedErrors[503]}; StreamLimitReached: this gateway process holds as many streams open as maxStreams allows (limit, max)`,
};

/** The document for `routes`: one operation per route, its scope under `x-scope`. */
export function gatewayOpenApi(routes: readonly GatewayRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    const pathParameters = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    const queryParameters = Object.entries(route.query ?? {}).map(([name, description]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema: { type: 'string' },
    }));
    const errors = { ...(route.scope ? authErrors : {}), ...sharedErrors, ...(route.streams ? streamErrors : {}) };
    const responses: Record<string, unknown> = {};
    for (const [status, description] of Object.entries(route.responses))
      responses[status] =
        status === '204'
          ? { description }
          : {
              description,
              content:
                route.streams && status === '200'
                  ? { 'text/event-stream': { schema: { type: 'string' } } }
                  : { 'application/json': { schema: { type: 'object' } } },
            };
    for (const [status, description] of Object.entries(errors))
      responses[status] ??= { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.name,
      summary: route.summary,
      ...(pathParameters.length + queryParameters.length > 0 ? { parameters: [...pathParameters, ...queryParameters] } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body) } } } } : {}),
      responses,
      security: route.scope ? [{ apiKey: [] }] : [],
      'x-scope': route.scope,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'durable-agents gateway',
      version,
      description: 'Runs, threads and approvals of durable-agents over HTTP (docs/gateway.md). JSON in and out.',
    },
    paths,
    components: {
      schemas: { Error: jsonSchema(errorBodySchema) },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: "An API key of the access file (its SHA-256 is stored there), or a JWT its 'jwt' settings accept",
        },
      },
    },
  };
}
