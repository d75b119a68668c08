// How an A2A call fails: A2A errors as JSON-RPC errors, the gateway's refusals (keys, scopes, limits) as HTTP statuses with a JSON-RPC body.
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { SendMessageRequest } from '@a2a-js/sdk';
import { errorReplyOf } from '../gateway/gateway-errors';

/** JSON-RPC's own codes the server answers with itself (the A2A ones come from the SDK's errors). */
export const JsonRpcCode = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, internalError: -32603 } as const;

/** A refusal answered at the HTTP level (401, 403, 404, 413, 429, 503): its status and gateway code, with a JSON-RPC body. */
export class A2aHttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly rpcCode: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'A2aHttpFailure';
  }
}

/** The JSON-RPC error envelope of a refusal, naming the gateway's code (and the field at fault) in an ErrorInfo. */
export function failureEnvelope(id: unknown, code: number, message: string, reason: string, metadata: Record<string, string> = {}): unknown {
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code, message, data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'durable-agents', metadata }] },
  };
}

/**
 * The error the A2A layer answers for a library or gateway error: the caller's own mistakes (bad
 * fields, unknown agent versions, a busy or closed thread) as invalid params naming them; refusals
 * of who the caller is or may do, and outages, as HTTP failures; anything else as it is (internal).
 */
export function a2aErrorOf(error: unknown): unknown {
  if (error instanceof A2AError || error instanceof A2aHttpFailure) return error;
  const reply = errorReplyOf(error);
  if (reply.internal) return error;
  const { code, message } = reply.body.error;
  if ([401, 403, 413, 429, 503].includes(reply.status)) {
    const headers: Record<string, string> = reply.status === 401 ? { 'www-authenticate': 'Bearer' } : {};
    if (reply.body.error.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.body.error.retryAfterSeconds);
    return new A2aHttpFailure(reply.status, code, message, reply.status === 503 ? JsonRpcCode.internalError : JsonRpcCode.invalidRequest, headers);
  }
  return new RequestMalformedError({
    message: `${message}`,
    metadata: { code, ...(reply.body.error.field ? { field: reply.body.error.field } : {}) },
  });
}

/**
 * `handler` with every error translated by `a2aErrorOf`, and each HTTP failure also handed to
 * `onFailure` (the SDK's transport answers every error inside its JSON-RPC body; the route then
 * sends the body with the failure's status).
 */
export function translatingErrors(handler: A2ARequestHandler, onFailure: (failure: A2aHttpFailure) => void): A2ARequestHandler {
  const translate = (error: unknown): unknown => {
    const translated = a2aErrorOf(error);
    if (translated instanceof A2aHttpFailure) onFailure(translated);
    return translated;
  };
  const call =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await method(...args);
      } catch (error) {
        throw translate(error);
      }
    };
  const stream = <A extends unknown[], R>(method: (...args: A) => AsyncGenerator<R>) =>
    async function* (...args: A): AsyncGenerator<R> {
      try {
        yield* method(...args);
      } catch (error) {
        throw translate(error);
      }
    };
  return {
    getAgentCard: call(() => handler.getAgentCard()),
    getAuthenticatedExtendedAgentCard: call((params, context) => handler.getAuthenticatedExtendedAgentCard(params, context)),
    sendMessage: call((params: SendMessageRequest, context) => handler.sendMessage(params, context)),
    sendMessageStream: stream((params: SendMessageRequest, context) => handler.sendMessageStream(params, context)),
    getTask: call((params, context) => handler.getTask(params, context)),
    cancelTask: call((params, context) => handler.cancelTask(params, context)),
    createTaskPushNotificationConfig: call((params, context) => handler.createTaskPushNotificationConfig(params, context)),
    getTaskPushNotificationConfig: call((params, context) => handler.getTaskPushNotificationConfig(params, context)),
    listTaskPushNotificationConfigs: call((params, context) => handler.listTaskPushNotificationConfigs(params, context)),
    deleteTaskPushNotificationConfig: call((params, context) => handler.deleteTaskPushNotificationConfig(params, context)),
    resubscribe: stream((params, context) => handler.resubscribe(params, context)),
    listTasks: call((params, context) => handler.listTasks(params, context)),
  };
}
