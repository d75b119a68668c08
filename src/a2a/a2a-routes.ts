// The A2A server mounted in the gateway: `/a2a/<agent>` (JSON-RPC, A2A 1.0 and 0.3) and its agent card, behind the gateway's keys and scopes.
import type { Hono } from 'hono';
import { A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { AgentClient } from '../client/agent-client';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import { gatewayChecksCallers, type GatewayAccess, type GatewayScope } from '../gateway/gateway-access';
import { requireAgent, requireScope, type CallerCheck } from '../gateway/gateway-auth';
import { readJsonBody } from '../gateway/gateway-body';
import { GatewayError, GatewayErrorCode } from '../gateway/gateway-errors';
import type { FeedRegistry } from '../gateway/streams/feed-registry';
import { sseBody, SSE_HEADERS } from '../gateway/streams/sse-body';
import { agentCardOf } from './a2a-agent-card';
import { A2aAgentDirectory } from './a2a-agent-directory';
import { a2aErrorOf, A2aHttpFailure, failureEnvelope, JsonRpcCode, translatingErrors } from './a2a-failures';
import { A2aAgentHandler } from './a2a-request-handler';
import type { A2aPushSettings } from './a2a-push-configs';

/** Which named agents the A2A server offers (docs/interop.md, "A2A"). */
export interface A2aServerOptions {
  /** The named agents (as the workers define them) callers reach at `/a2a/<name>`; others are not found there. */
  agents: readonly string[];
  /**
   * The gateway's public address as callers reach it (`https://agents.example.com`), for the URL
   * each card gives. Default: the address a card was asked at.
   */
  publicUrl?: string;
  /**
   * Push notifications (docs/interop.md, "Push notifications"): the keys configs' secrets are
   * sealed with (the workers' too) and which webhook hosts are taken. Without it the card says
   * `pushNotifications: false` and the push methods answer PushNotificationNotSupported.
   */
  push?: A2aPushSettings;
}

/** What the A2A routes share with the gateway. */
export interface A2aMount {
  agents: AgentClient;
  access: GatewayAccess;
  checkCaller: CallerCheck;
  feeds: FeedRegistry;
  maxBodyBytes: number;
  decisionKey?: DecisionSigningKey | undefined;
  /** The gateway's mount prefix (`GatewayOptions.basePath`), '' for none. */
  basePath: string;
  log?: ((line: string) => void) | undefined;
}

/** The scope a JSON-RPC method needs at least (A2A 1.0 and 0.3 names); the handler asks `approve` of a decision. */
function scopeOf(method: unknown, params: unknown): GatewayScope {
  const message = (params as { message?: { taskId?: unknown; contextId?: unknown; context_id?: unknown; task_id?: unknown } } | null)?.message;
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
    case 'message/send':
    case 'message/stream':
      return message?.taskId || message?.contextId || message?.task_id || message?.context_id ? 'send' : 'start';
    case 'CancelTask':
    case 'tasks/cancel':
      return 'start';
    default:
      return 'read';
  }
}

/**
 * Mounts the A2A server on the gateway's app: one JSON-RPC endpoint and one card per exposed
 * agent. Every call is checked as the gateway's routes are (the caller's key or JWT, its request
 * limit, its agent rules, the method's scope) before anything reaches Temporal; the body is capped
 * at the gateway's limit before it is parsed.
 */
export function mountA2a(app: Hono, mount: A2aMount, options: A2aServerOptions): void {
  const directory = new A2aAgentDirectory(mount.agents, options.agents);
  const cardFor = async (agent: string, requestUrl: string) => {
    const offer = await directory.offer(agent);
    const origin = options.publicUrl?.replace(/\/$/, '') ?? new URL(requestUrl).origin;
    return {
      offer,
      card: agentCardOf(offer, {
        url: `${origin}${mount.basePath}/a2a/${encodeURIComponent(agent)}`,
        authenticated: gatewayChecksCallers(mount.access),
        pushNotifications: options.push !== undefined,
      }),
    };
  };

  app.get('/a2a/:agent/.well-known/agent-card.json', async (context) => {
    try {
      const { card } = await cardFor(context.req.param('agent'), context.req.url);
      return context.json(AgentCard.toJSON(card) as Record<string, unknown>);
    } catch (error) {
      const failure = error instanceof A2aHttpFailure ? error : (a2aErrorOf(error) as Error);
      const status = failure instanceof A2aHttpFailure ? failure.status : 500;
      return context.json(
        { error: { code: failure instanceof A2aHttpFailure ? failure.code : GatewayErrorCode.internal, message: failure.message } },
        status as 404,
      );
    }
  });

  app.post('/a2a/:agent', async (context) => {
    const agent = context.req.param('agent');
    const request = context.req.raw;
    let rpcId: unknown = null;
    let principalName = '-';
    const refuse = (failure: A2aHttpFailure) => {
      mount.log?.(`POST ${context.req.path} ${failure.status} ${principalName}`);
      return new Response(JSON.stringify(failureEnvelope(rpcId, failure.rpcCode, failure.message, failure.code)), {
        status: failure.status,
        headers: { 'content-type': 'application/json', ...failure.headers },
      });
    };
    try {
      const principal = await mount.checkCaller(request.headers.get('authorization') ?? undefined);
      principalName = principal.name;
      requireAgent(principal, agent);
      let body: unknown;
      try {
        body = await readJsonBody(request, mount.maxBodyBytes);
      } catch (error) {
        if (error instanceof GatewayError && error.code === GatewayErrorCode.invalidJson)
          return Response.json(failureEnvelope(null, JsonRpcCode.parseError, `Parse error: ${error.message}`, error.code));
        throw error;
      }
      rpcId = (body as { id?: unknown } | null)?.id ?? null;
      const problem = envelopeProblem(body);
      if (problem !== null) return Response.json(failureEnvelope(rpcId, JsonRpcCode.invalidRequest, `Invalid Request: ${problem}`, 'InvalidRequest'));
      const rpc = body as { method: string; params?: unknown };
      requireScope(principal, scopeOf(rpc.method, rpc.params));
      const { offer, card } = await cardFor(agent, request.url);
      let httpFailure: A2aHttpFailure | null = null;
      const handler = translatingErrors(
        new A2aAgentHandler({
          agents: mount.agents,
          feeds: mount.feeds,
          agent,
          principal,
          access: mount.access,
          offer,
          card,
          decisionKey: mount.decisionKey,
          push: options.push,
          signal: request.signal,
        }),
        (failure) => (httpFailure = failure),
      );
      // A2A 1.0 callers say so in the A2A-Version header; without it a caller speaks 0.3 (message/send, tasks/get, ...).
      const version = request.headers.get(A2A_VERSION_HEADER) ?? '0.3';
      if (version !== '0.3' && version !== '1.0')
        return Response.json(
          failureEnvelope(rpcId, -32009, `A2A-Version: '${version}' is not served here (this server speaks 1.0 and 0.3)`, 'VERSION_NOT_SUPPORTED'),
        );
      const callContext = new ServerCallContext({ requestedVersion: version });
      const legacy = version === '0.3';
      const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
      const reply = legacy
        ? await new LegacyJsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, callContext)
        : await new JsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, callContext);
      if (!isStream(reply)) {
        const failure = httpFailure as A2aHttpFailure | null;
        const status = failure?.status ?? 200;
        mount.log?.(`POST ${context.req.path} ${status} ${principalName}`);
        return new Response(JSON.stringify(reply), { status, headers: { 'content-type': 'application/json', ...(failure?.headers ?? {}) } });
      }
      // The first event is awaited before the stream is answered: a refusal then gets its own status and a JSON body.
      const first = await reply.next().catch((error: unknown) => ({ error }));
      if ('error' in first) {
        const failure = httpFailure as A2aHttpFailure | null;
        if (failure) return refuse(failure);
        return Response.json({ jsonrpc: '2.0', id: rpcId, error: mapError(first.error) });
      }
      mount.log?.(`POST ${context.req.path} 200 ${principalName} (stream)`);
      const onError = (error: unknown) => ({ jsonrpc: '2.0', id: rpcId, error: mapError(error) });
      return new Response(sseBody(sseMessages(first, reply, onError), new AbortController(), null), { status: 200, headers: SSE_HEADERS });
    } catch (error) {
      const translated = a2aErrorOf(error);
      if (translated instanceof A2aHttpFailure) return refuse(translated);
      mount.log?.(`POST ${context.req.path} internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return Response.json(failureEnvelope(rpcId, JsonRpcCode.internalError, 'Internal error: the gateway logged it', GatewayErrorCode.internal), {
        status: 500,
      });
    }
  });
}

function isStream(reply: unknown): reply is AsyncGenerator<unknown> {
  return typeof (reply as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

/** A JSON-RPC request's shape problem (JSON-RPC 2.0: `jsonrpc: "2.0"`, a string `method`, an id that is a string, an integer or null), or null. */
function envelopeProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'the body must be one JSON-RPC request object (batches are not served)';
  const request = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown };
  if (request.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof request.method !== 'string' || request.method === '') return 'method must be a string';
  const id = request.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id)))
    return 'id must be a string, an integer or null';
  if (request.params !== undefined && (typeof request.params !== 'object' || request.params === null)) return 'params must be an object';
  return null;
}

/** The stream's JSON-RPC responses as SSE messages; an error mid-stream is sent as the last one (the caller resubscribes). */
async function* sseMessages(first: IteratorResult<unknown>, rest: AsyncGenerator<unknown>, onError: (error: unknown) => unknown) {
  if (!first.done) yield { data: first.value, id: null };
  try {
    for await (const data of rest) yield { data, id: null };
  } catch (error) {
    yield { data: onError(error), id: null };
  }
}
