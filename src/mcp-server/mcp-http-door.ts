// The MCP server over streamable HTTP, as the gateway mounts it: the gateway's callers and limits, one SDK transport per session.
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode as McpErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../client/agent-client';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import type { GatewayAccess } from '../gateway/gateway-access';
import type { CallerCheck, Principal } from '../gateway/gateway-auth';
import { readJsonBody } from '../gateway/gateway-body';
import { errorReplyOf } from '../gateway/gateway-errors';
import type { FeedRegistry } from '../gateway/streams/feed-registry';
import { createAgentMcpServer } from './agent-mcp-server';
import { AgentToolCatalog, type AgentCatalogOptions } from './agent-tool-catalog';

/** What the MCP door of a gateway serves. */
export interface McpDoorOptions extends AgentCatalogOptions {
  agents: AgentClient;
  access: GatewayAccess;
  /** The gateway's caller check (the same keys, tokens and request limits). */
  checkCaller: CallerCheck;
  maxBodyBytes: number;
  decisionKey?: DecisionSigningKey;
  /** Sessions held at once; the oldest is closed for a new one beyond it. Default 1,000. */
  maxSessions?: number;
  /** The gateway's shared feeds: live calls follow their runs and turns through them. */
  feeds?: FeedRegistry;
}

/** The MCP door: a Fetch-style handler for `/mcp` and what closes its sessions. */
export interface McpDoor {
  fetch(request: Request): Promise<Response>;
  /** Open sessions (each an initialized client). */
  readonly sessions: number;
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  /** The caller that opened it: only it may use the session id. */
  caller: string;
}

/**
 * The streamable HTTP door of the MCP server (the SDK's web-standard transport, one per session).
 * Every request is checked as the gateway checks its routes (API key or JWT, request limit) before
 * its body is read; a body over the gateway's limit is refused before it is parsed, and nothing
 * reaches Temporal before the call's arguments are checked. Sessions live in this process (an MCP
 * session is a connection); the work does not: a task is its run's workflow, answered by any process.
 */
export function createMcpDoor(options: McpDoorOptions): McpDoor {
  const sessions = new Map<string, Session>();
  const catalog = new AgentToolCatalog(options.agents, options.exposed ? { exposed: options.exposed } : {});
  const maxSessions = options.maxSessions ?? 1_000;

  async function openSession(principal: Principal): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = createAgentMcpServer({
      agents: options.agents,
      catalog,
      principal,
      access: options.access,
      ...(options.decisionKey ? { decisionKey: options.decisionKey } : {}),
      ...(options.feeds ? { feeds: options.feeds } : {}),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, caller: principal.caller });
        if (sessions.size > maxSessions) void sessions.values().next().value?.transport.close();
      },
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  }

  async function fetch(request: Request): Promise<Response> {
    let principal: Principal;
    let body: unknown;
    try {
      principal = await options.checkCaller(request.headers.get('authorization') ?? undefined);
      body = request.method === 'POST' ? await readJsonBody(request, options.maxBodyBytes) : undefined;
    } catch (error) {
      const reply = errorReplyOf(error);
      const code = reply.body.error.code === 'InvalidJson' ? McpErrorCode.ParseError : McpErrorCode.InvalidRequest;
      const headers: Record<string, string> = reply.status === 401 ? { 'www-authenticate': 'Bearer' } : {};
      return rpcError(reply.status, code, reply.body.error.message, headers);
    }
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      // Another caller's session is as unknown as a closed one.
      if (!session || session.caller !== principal.caller) return rpcError(404, McpErrorCode.InvalidRequest, `Session not found: ${sessionId}`);
      return session.transport.handleRequest(request, { parsedBody: body });
    }
    if (request.method !== 'POST' || !isInitialize(body))
      return rpcError(400, McpErrorCode.InvalidRequest, 'Bad Request: no Mcp-Session-Id header; start with an initialize request');
    const transport = await openSession(principal);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // An initialize the transport refused opened no session: nothing keeps its server.
    if (!transport.sessionId) await transport.close();
    return response;
  }

  return {
    fetch,
    get sessions() {
      return sessions.size;
    },
    async close() {
      await Promise.all([...sessions.values()].map((session) => session.transport.close().catch(() => undefined)));
      sessions.clear();
    },
  };
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method === 'initialize');
}

/** A JSON-RPC error with no id (the request was not read as one), as MCP's HTTP transport answers. */
function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
