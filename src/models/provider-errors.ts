import type { APICallError } from 'ai';
import { ErrorCode } from '../protocol/errors';
import { ModelError } from './model-provider';

/**
 * The AI SDK brands each of its error classes with a registry symbol (`Symbol.for`), and its own
 * `APICallError.isInstance` tests exactly that brand, so that separate copies of the SDK recognise
 * each other's errors. Testing the same brand here classifies an AI SDK failure without loading
 * the SDK: a worker whose models are scripted or custom never loads it (test/unit/lazy-modules.test.ts
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

/**
 * When to come back after a 429: `retry-after-ms`, then `retry-after` (seconds or a date), then
 * the rate-limit headers' reset times (OpenAI's `x-ratelimit-reset-*` durations such as `6m0s`,
 * Anthropic's `anthropic-ratelimit-*-reset` dates), the latest of them.
 */
export function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['retry-after-ms'] ?? headers?.['retry-after'];
  if (!value) return rateLimitResetMs(headers ?? {});
  if (headers?.['retry-after-ms']) return Number(value);
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

const RESET_DURATION_HEADERS = ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens'];
const RESET_DATE_HEADERS = [
  'anthropic-ratelimit-requests-reset',
  'anthropic-ratelimit-tokens-reset',
  'anthropic-ratelimit-input-tokens-reset',
  'anthropic-ratelimit-output-tokens-reset',
];
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** The latest reset a provider's rate-limit headers announce, in ms from now (none: undefined). */
function rateLimitResetMs(headers: Record<string, string>): number | undefined {
  const resets: number[] = [];
  for (const name of RESET_DURATION_HEADERS) {
    const text = headers[name];
    if (!text) continue;
    let total = 0;
    for (const [, amount, unit] of text.matchAll(DURATION_PART)) total += Number(amount) * UNIT_MS[unit!]!;
    if (total > 0) resets.push(total);
  }
  for (const name of RESET_DATE_HEADERS) {
    const date = headers[name] ? Date.parse(headers[name]!) : NaN;
    if (Number.isFinite(date)) resets.push(Math.max(0, date - Date.now()));
  }
  return resets.length > 0 ? Math.ceil(Math.max(...resets)) : undefined;
}
