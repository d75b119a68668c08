/**
 * How a run retries its activities. Temporal retries an activity whose worker died or timed out for as long as the run
 * lives; the failures of the provider or the tool itself come back to the workflow as
 * non-retryable failures carrying these details, and the workflow retries them within the
 * config's budget (`max_retries` for model calls, {@link TOOL_TRY_LIMIT} for tools). So a
 * crash-looping worker delays a run but never uses up its retries. Pure: workflows and
 * activities share it.
 */

/** What an activity attaches to a failure the workflow decides about. */
export interface RetryableFailureDetails {
  /** Whether another try may succeed (a rate limit, a 5xx, a RetryableToolError). */
  retryable: boolean;
  /** The server's retry-after, when it sent one. */
  retryAfterMs?: number;
  /** Executions of this call so far, across workflow tries and Temporal's own retries. */
  attempts: number;
}

/** Tries of a tool call that throws RetryableToolError before it becomes an error result. */
export const TOOL_TRY_LIMIT = 5;

/** Backoff between the workflow's tries. */
export interface Backoff {
  initialMs: number;
  coefficient: number;
  maximumMs: number;
}

export const MODEL_BACKOFF: Backoff = { initialMs: 1_000, coefficient: 2, maximumMs: 60_000 };
export const TOOL_BACKOFF: Backoff = { initialMs: 1_000, coefficient: 2, maximumMs: 30_000 };

/** What to do after try `tryNumber` of `maxTries` failed with `details` (none: not our failure). */
export type RetryDecision = { retry: false } | { retry: true; delayMs: number; attemptsBefore: number };

export function retryDecision(details: RetryableFailureDetails | undefined, tryNumber: number, maxTries: number, backoff: Backoff): RetryDecision {
  if (!details?.retryable || tryNumber >= maxTries) return { retry: false };
  const exponential = Math.min(backoff.maximumMs, backoff.initialMs * backoff.coefficient ** (tryNumber - 1));
  return { retry: true, delayMs: details.retryAfterMs ?? exponential, attemptsBefore: details.attempts };
}

/** The activity id of a try: the first keeps the id runs always had, later ones add `.try-N`. */
export function tryActivityId(activityId: string, tryNumber: number): string {
  return tryNumber === 1 ? activityId : `${activityId}.try-${tryNumber}`;
}

/** The id every try of a call shares (what `tryActivityId` added, removed). */
export function baseActivityId(activityId: string): string {
  return activityId.replace(/\.try-\d+$/, '');
}
