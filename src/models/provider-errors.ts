import type { APICallError } from 'ai';
import { ErrorCode } from '../protocol/errors';
import { ModelError } from './model-provider';

/**
 * The AI SDK brands each of its error classes with a registry symbol (`Symbol.for`), and its own
 * `APICallError.isInstance` tests exactly that brand, so that separate copies of the SDK recognise
 * each other's errors. Testing the same brand here classifies an AI SDK failure without loading
 * the SDK: a worker whose models are scripted or custom never loads it (test/lazy-modules.test.ts
 * checks the brand against the installed SDK's own `isInstance`).
 */
const API_CALL_ERROR_BRAND = Symbol.for('vercel.ai.error.AI_APICallError');

/** True for the AI SDK's `APICallError` (an HTTP call to a provider that failed), from any copy of the SDK. */
export function isApiCallError(error: unknown): error is APICallError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[API_CALL_ERROR_BRAND] === true;
}

const CONTEXT_LENGTH_PATTERN = /context[_ ]length|maximum context|too many tokens|prompt is too long|context window/i;

/**
 * Maps a provider failure onto the runtime's error classes (see docs/errors.md): rate limits and
 * server errors are retryable (with the server's retry-after), auth, bad requests and context
 * length are not. Works for any provider; it never loads the AI SDK.
 */
export function classifyProviderError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  if (isApiCallError(error)) {
    const status = error.statusCode ?? 0;
    const body = `${error.message} ${error.responseBody ?? ''}`;
    if (CONTEXT_LENGTH_PATTERN.test(body)) return new ModelError(ErrorCode.contextLengthExceeded, error.message);
    if (status === 429) return new ModelError(ErrorCode.modelRateLimited, error.message, retryAfterMs(error.responseHeaders));
    if (status === 401 || status === 403) return new ModelError(ErrorCode.modelAuthFailed, error.message);
    if (status >= 500) return new ModelError(ErrorCode.modelServerError, error.message);
    if (status >= 400) return new ModelError(ErrorCode.modelBadRequest, error.message);
    return new ModelError(ErrorCode.modelServerError, error.message);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return new ModelError(ErrorCode.modelTimeout, message);
  }
  return new ModelError(ErrorCode.modelServerError, message);
}

function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['retry-after-ms'] ?? headers?.['retry-after'];
  if (!value) return undefined;
  if (headers?.['retry-after-ms']) return Number(value);
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}
