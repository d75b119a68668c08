// The gateway's errors: the library's typed errors as HTTP statuses, with one JSON body shape for all of them.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { transientServerError } from '../client/decision-delivery';
import { ErrorCode } from '../protocol/errors';

/**
 * The error codes only the gateway gives, in `{ error: { code } }` (the library's own `ErrorCode`
 * values keep theirs). docs/gateway.md lists each with its HTTP status.
 * @example
 * import { GatewayErrorCode } from 'durable-agents/gateway';
 *
 * const answer = await fetch(`${gateway}/v1/approvals/${runId}/${approvalId}`, { method: 'POST', headers, body: JSON.stringify({ decision: 'approve' }) });
 * const { error } = await answer.json();
 * if (error?.code === GatewayErrorCode.alreadyDecided) console.log(`Already ${error.outcome} by ${error.decidedBy}`);
 */
export const GatewayErrorCode = {
  /** A body that is not JSON. */
  invalidJson: 'InvalidJson',
  /** A body or query parameter of the wrong shape: `field` names it. */
  invalidRequest: 'InvalidRequest',
  /** No API key or token, one the access file does not know, or a token failing a check (signature, issuer, audience): the message names it. */
  unauthenticated: 'Unauthenticated',
  /** A token (JWT) past its `exp`: get a new one. */
  tokenExpired: 'TokenExpired',
  /** The caller's request limit (`rate_limit`) is used up: retry after `retryAfterSeconds` (also the `Retry-After` header). */
  rateLimited: 'RateLimited',
  /** The caller holds as many streams open on this gateway process as `maxStreamsPerPrincipal` allows: close one. */
  tooManyStreams: 'TooManyStreams',
  /** This gateway process holds as many streams open as `maxStreams` allows: try again later (or another process). */
  streamLimitReached: 'StreamLimitReached',
  /** The keys that check tokens (the access file's `jwks_url`) could not be fetched: try again. */
  authenticationUnavailable: 'AuthenticationUnavailable',
  /** A key without the scope a route needs, or not allowed this agent. */
  forbidden: 'Forbidden',
  /** A path and method the gateway has no route for. */
  routeNotFound: 'RouteNotFound',
  /** A decision on an approval someone else (or its timeout) decided first: `decidedBy` and `outcome` say how. */
  alreadyDecided: 'AlreadyDecided',
  /** A cancel or an injected message for a run that has ended. */
  runClosed: 'RunClosed',
  /** A decision on an approval id the run does not have (unknown or expired). */
  approvalNotFound: 'ApprovalNotFound',
  /** A turn number a thread has not reached (no message sent, queued or running for it). */
  turnNotFound: 'TurnNotFound',
  /** A run started with the `workflowId` of a run that is still running. */
  runAlreadyStarted: 'RunAlreadyStarted',
  /** The Temporal server is restarting or overloaded: try again. */
  temporalUnavailable: 'TemporalUnavailable',
  /** Anything else: a bug or an outage, logged by the gateway. */
  internal: 'InternalError',
} as const;

/** What an error body says besides its code and message. */
export interface ErrorDetails {
  /** The request field (or path parameter, or header) at fault. */
  field?: string;
  /** For `PayloadTooLarge`: what the field may hold, in bytes. */
  limitBytes?: number;
  /** For `AgentConfigError` and `AgentOverrideRefused`: one line per invalid field. */
  problems?: string[];
  /** For `AgentNotFound`: the agents the workers offer (`name@version`). */
  offered?: string[];
  /** For `AlreadyDecided`: who decided first (null: no name, or the timeout) and how. */
  decidedBy?: string | null;
  /** ... through which door (`console`, `mcp`, ...; null when the decision named none). */
  decidedVia?: string | null;
  outcome?: string;
  /** For `TooManyStreams` and `StreamLimitReached`: the limit reached (`maxStreamsPerPrincipal`, `maxStreams`) and its value. */
  limit?: string;
  max?: number;
  /** For `RateLimited`: whole seconds until a request fits (the `Retry-After` header says the same). */
  retryAfterSeconds?: number;
}

/** Every error answer's body: `{ error: { code, message, field?, ... } }`. */
export interface ErrorBody {
  error: { code: string; message: string } & ErrorDetails;
}

/** An error the gateway raises itself, with the HTTP status it answers with. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = code;
  }
}

/**
 * The HTTP status of each error code: 400 bad input, 401 / 403 authentication, 404 an unknown run,
 * thread, agent or route, 409 a state that refuses the request, 413 too large, 429 over the
 * caller's request or stream limit, 503 Temporal, its workers or the token keys unavailable, or the process's stream limit reached. A code not listed answers 500.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<string, number>> = {
  [GatewayErrorCode.invalidJson]: 400,
  [GatewayErrorCode.invalidRequest]: 400,
  [ErrorCode.agentConfigInvalid]: 400,
  [ErrorCode.agentOverrideRefused]: 400,
  [ErrorCode.emptyMessage]: 400,
  [ErrorCode.invalidMessage]: 400,
  [GatewayErrorCode.unauthenticated]: 401,
  [GatewayErrorCode.tokenExpired]: 401,
  [GatewayErrorCode.forbidden]: 403,
  [ErrorCode.decisionUnverified]: 403,
  [ErrorCode.runNotFound]: 404,
  [ErrorCode.threadNotFound]: 404,
  [ErrorCode.agentNotFound]: 404,
  [GatewayErrorCode.routeNotFound]: 404,
  [GatewayErrorCode.approvalNotFound]: 404,
  [GatewayErrorCode.turnNotFound]: 404,
  [ErrorCode.threadBusy]: 409,
  [ErrorCode.threadClosed]: 409,
  [ErrorCode.threadConfigMismatch]: 409,
  [ErrorCode.turnResultUnavailable]: 409,
  [ErrorCode.approvalRefused]: 409,
  [GatewayErrorCode.alreadyDecided]: 409,
  [GatewayErrorCode.runAlreadyStarted]: 409,
  [GatewayErrorCode.runClosed]: 409,
  [ErrorCode.payloadTooLarge]: 413,
  [GatewayErrorCode.rateLimited]: 429,
  [GatewayErrorCode.tooManyStreams]: 429,
  [ErrorCode.workersUnavailable]: 503,
  [ErrorCode.searchAttributesMissing]: 503,
  TemporalUnreachable: 503,
  [GatewayErrorCode.temporalUnavailable]: 503,
  [GatewayErrorCode.authenticationUnavailable]: 503,
  [GatewayErrorCode.streamLimitReached]: 503,
  [GatewayErrorCode.internal]: 500,
};

/** The status and body the gateway answers an error with (`internal` is told apart so it can be logged). */
export interface ErrorReply {
  status: number;
  body: ErrorBody;
  internal: boolean;
}

/**
 * Maps any error to its answer. Library errors are recognised by their `code` (not `instanceof`,
 * which fails across module copies); Temporal's own not-found and already-started errors by type.
 */
export function errorReplyOf(error: unknown): ErrorReply {
  if (error instanceof GatewayError) return reply(error.status, error.code, error.message, error.details);
  if (error instanceof WorkflowExecutionAlreadyStartedError)
    return reply(409, GatewayErrorCode.runAlreadyStarted, `A run with workflowId '${error.workflowId}' is already running`, {
      field: 'workflowId',
    });
  if (error instanceof WorkflowNotFoundError) return reply(404, ErrorCode.runNotFound, `No run or thread '${error.workflowId}' in this namespace`);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code in HTTP_STATUS_BY_CODE && error instanceof Error)
    return reply(HTTP_STATUS_BY_CODE[code]!, code, error.message, detailsOf(error));
  if (transientServerError(error) !== null)
    return reply(503, GatewayErrorCode.temporalUnavailable, `The Temporal server did not answer (${transientServerError(error)}): try again`);
  return { ...reply(500, GatewayErrorCode.internal, 'Internal error: the gateway logged it'), internal: true };
}

function reply(status: number, code: string, message: string, details: ErrorDetails = {}): ErrorReply {
  return { status, body: { error: { code, message, ...details } }, internal: false };
}

/** The fields the library's typed errors carry, as the body names them. */
function detailsOf(error: Error): ErrorDetails {
  const carried = error as { field?: unknown; limitBytes?: unknown; problems?: unknown; offered?: unknown; agent?: unknown };
  const details: ErrorDetails = {};
  if (typeof carried.field === 'string') details.field = carried.field;
  if (typeof carried.limitBytes === 'number') details.limitBytes = carried.limitBytes;
  if (Array.isArray(carried.problems)) {
    details.problems = carried.problems.map(String);
    // "<field path>: <what is wrong>": the first problem's path is the field at fault.
    const path = details.problems[0]?.split(':')[0]?.trim();
    if (path && !details.field && /^[\w.[\]-]+$/.test(path)) details.field = path;
  }
  if (Array.isArray(carried.offered)) {
    details.offered = carried.offered.map(String);
    details.field ??= 'agent';
  }
  return details;
}
