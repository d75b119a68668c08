// What a gateway route is (method, path, scope, body schema, answers, handler), and the lookups routes share.
import { WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import type { z } from 'zod';
import type { AgentClient } from '../client/agent-client';
import { ErrorCode } from '../protocol/errors';
import { AgentNameAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import type { GatewayAccess, GatewayScope } from './gateway-access';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import { requireAgent, type Principal } from './gateway-auth';
import { GatewayError } from './gateway-errors';
import type { FeedRegistry } from './streams/feed-registry';

/** What a route's handler is given. */
export interface RouteContext {
  agents: AgentClient;
  access: GatewayAccess;
  principal: Principal;
  /** Path parameters (`:id`), decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (`{}` when empty); the handler checks it against its schema. */
  body: unknown;
  /** The request's headers (lowercase names): `last-event-id` for streams. */
  headers: Headers;
  /** Aborts when the client goes away: a stream ends. */
  signal: AbortSignal;
  /** The gateway's shared feeds of events and live text, one per run or thread its streams follow. */
  feeds: FeedRegistry;
  /** The key decisions' proofs are signed with (`GatewayOptions.decisionKey`), if any. */
  decisionKey?: DecisionSigningKey | undefined;
}

/** A handler's answer: its status and JSON body, or a stream (Server-Sent Events) with its headers. */
export type RouteReply = { status: number; body: unknown } | { status: number; stream: ReadableStream<Uint8Array>; headers: Record<string, string> };

/** One route of the gateway: what the app serves and what the OpenAPI document describes, from one table. */
export interface GatewayRoute {
  method: 'GET' | 'POST';
  /** Hono-style path (`/v1/runs/:id`). */
  path: string;
  /** The OpenAPI `operationId`. */
  name: string;
  summary: string;
  /** The scope a caller needs; null: anyone (the OpenAPI document). */
  scope: GatewayScope | null;
  body?: z.ZodType;
  /** Query parameters and what each means. */
  query?: Record<string, string>;
  /** Its 200 answer is a Server-Sent Events stream, not JSON. */
  streams?: true;
  /** Every status the route answers with besides the shared errors, and what it means. */
  responses: Record<number, string>;
  handle(context: RouteContext): Promise<RouteReply>;
}

/** A run or thread as the routes that name one by id see it. */
export interface FoundExecution {
  description: WorkflowExecutionDescription;
  kind: 'run' | 'thread';
  agent: string | null;
  running: boolean;
}

/**
 * The run or thread `workflowId` (its latest execution), after checking the principal may use its
 * agent. @throws RunNotFound / ThreadNotFound (404) for an unknown id, Forbidden (403) for an agent
 * the principal's rules leave out.
 */
export async function findExecution(context: RouteContext, workflowId: string, expected?: 'run' | 'thread'): Promise<FoundExecution> {
  const description = await context.agents
    .getRun(workflowId)
    .workflow.describe()
    .catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) throw notFound(expected ?? 'run', workflowId);
      throw error;
    });
  const kind = description.type === WireName.agentThreadWorkflow ? 'thread' : description.type === WireName.agentRunWorkflow ? 'run' : null;
  if (kind === null || (expected && kind !== expected)) throw notFound(expected ?? 'run', workflowId);
  const agent = description.typedSearchAttributes.get(AgentNameAttribute) ?? null;
  requireAgent(context.principal, agent);
  return { description, kind, agent, running: description.status.name === 'RUNNING' };
}

function notFound(kind: 'run' | 'thread', workflowId: string): GatewayError {
  return kind === 'thread'
    ? new GatewayError(404, ErrorCode.threadNotFound, `No thread '${workflowId}' in this namespace`, { field: 'id' })
    : new GatewayError(404, ErrorCode.runNotFound, `No run '${workflowId}' in this namespace`, { field: 'id' });
}

/** The agent a body names (`agent`, or an inline config's `name`), or null. */
export function agentNamed(body: { agent?: string | undefined; config?: Record<string, unknown> | undefined }): string | null {
  if (body.agent !== undefined) return body.agent;
  return typeof body.config?.name === 'string' ? body.config.name : null;
}
