// Request limits per API key and per token principal: a token bucket each, kept in this gateway process's memory.
import { z } from 'zod';
import { GatewayError, GatewayErrorCode } from './gateway-errors';

/** How many requests a caller may send: `requestsPerMinute` on average, `burst` at once. */
export interface RateLimit {
  requestsPerMinute: number;
  /** The bucket's size: requests a caller may send back to back after being idle. */
  burst: number;
}

/** `rate_limit` in the access file (top level, per key, under `jwt`): `burst` defaults to a minute's worth. */
export const rateLimitSchema = z
  .object({
    requests_per_minute: z.number().positive().max(1_000_000),
    burst: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict()
  .transform((limit): RateLimit => ({
    requestsPerMinute: limit.requests_per_minute,
    burst: limit.burst ?? Math.max(1, Math.ceil(limit.requests_per_minute)),
  }));

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  updatedAt: number;
  limit: RateLimit;
}

/** Above this many buckets, a take first drops the ones that have refilled (they hold nothing a new bucket would not). */
const PRUNE_ABOVE = 10_000;

/**
 * Token buckets by caller (an API key's hash, a token's principal). Each holds `burst` tokens and
 * gains `requestsPerMinute / 60` a second; a request takes one. The buckets live in this process:
 * behind a load balancer each gateway process limits on its own (docs/gateway.md).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** `now` is injectable so the arithmetic is tested without waiting. */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Takes one request from `caller`'s bucket.
   * @throws GatewayError 429 `RateLimited` with `retryAfterSeconds` (whole seconds until a request fits) when it is empty.
   */
  take(caller: string, limit: RateLimit): void {
    const now = this.now();
    if (this.buckets.size > PRUNE_ABOVE) this.prune(now);
    const bucket = this.buckets.get(caller);
    const current = bucket && sameLimit(bucket.limit, limit) ? refilled(bucket, now) : { tokens: limit.burst, updatedAt: now, limit };
    if (current.tokens >= 1) {
      this.buckets.set(caller, { ...current, tokens: current.tokens - 1 });
      return;
    }
    this.buckets.set(caller, current);
    const perSecond = limit.requestsPerMinute / 60;
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - current.tokens) / perSecond));
    throw new GatewayError(
      429,
      GatewayErrorCode.rateLimited,
      `Too many requests: ${limit.requestsPerMinute} a minute (burst ${limit.burst}) for this caller; retry in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }

  /** How many callers have a bucket (for tests and the docs' memory note). */
  get size(): number {
    return this.buckets.size;
  }

  private prune(now: number): void {
    for (const [caller, bucket] of this.buckets) if (refilled(bucket, now).tokens >= bucket.limit.burst) this.buckets.delete(caller);
  }
}

function refilled(bucket: Bucket, now: number): Bucket {
  const gained = (Math.max(0, now - bucket.updatedAt) / 60_000) * bucket.limit.requestsPerMinute;
  return { tokens: Math.min(bucket.limit.burst, bucket.tokens + gained), updatedAt: now, limit: bucket.limit };
}

function sameLimit(a: RateLimit, b: RateLimit): boolean {
  return a.requestsPerMinute === b.requestsPerMinute && a.burst === b.burst;
}
