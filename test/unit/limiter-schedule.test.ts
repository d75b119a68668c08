// The provider limiter's pure decisions (no server): pacing, fairness, priority, usage corrections, pauses; the config and priority schemas; rate-limit headers.
import { describe, expect, it } from '@jest/globals';
import { parseAgentConfig } from '../../src/config/agent-config';
import { parseRunPriority } from '../../src/config/run-priority-schema';
import { retryAfterMs } from '../../src/models/provider-errors';
import type { LimitRequest, ProviderLimit } from '../../src/protocol/provider-limits';
import {
  enqueue,
  GRANT_HORIZON_MS,
  grantDue,
  isIdle,
  limiterStatus,
  newLimiterState,
  nextWakeMs,
  recordPause,
  recordUsage,
} from '../../src/workflows/limits/limiter-schedule';

const request = (
  requestId: string,
  fairnessKey = '',
  priorityKey = 3,
  estimatedTokens = 100,
  limit: ProviderLimit = { requestsPerMinute: 600 },
): LimitRequest => ({
  requestId,
  workflowId: `run-${requestId}`,
  estimatedTokens,
  priorityKey,
  fairnessKey,
  limit,
});

/** Grants everything queued, waking as the limiter does; returns the grant order and times. */
function drain(state: ReturnType<typeof newLimiterState>, startMs = 0): Array<{ id: string; atMs: number }> {
  const order: Array<{ id: string; atMs: number }> = [];
  let now = startMs;
  for (let guard = 0; guard < 10_000 && state.queue.length > 0; guard++) {
    for (const { request: granted, atMs } of grantDue(state, now)) order.push({ id: granted.requestId, atMs });
    now = nextWakeMs(state, now) ?? now;
  }
  return order;
}

describe('the limiter schedule', () => {
  it('catches up at most CATCH_UP_MS when it wakes late', () => {
    const state = newLimiterState({});
    for (let index = 0; index < 10; index++) enqueue(state, request(`r${index}`), 0);
    grantDue(state, 0);
    // Woken 2.5 s after the schedule ran dry: the call due now and 250 ms of owed ones (at 100 ms:
    // 2, and the third at the remaining 50 ms) go at once or nearly, the rest paced from there.
    for (let index = 0; index < 10; index++) enqueue(state, request(`late${index}`), 0);
    const lateTimes = grantDue(state, 3_500).map((grant) => grant.atMs);
    expect(lateTimes.filter((at) => at === 3_500)).toHaveLength(3);
    expect(lateTimes.slice(3, 5)).toEqual([3_550, 3_650]);
  });

  it('paces grants one request interval apart and never more than the horizon ahead', () => {
    const state = newLimiterState({});
    for (let index = 0; index < 5; index++) enqueue(state, request(`r${index}`), 0);
    const first = grantDue(state, 0);
    // 600 a minute: one every 100 ms; within a second, r0..r4 all fit.
    expect(first.map((grant) => grant.atMs)).toEqual([0, 100, 200, 300, 400]);
    enqueue(state, request('late'), 0);
    expect(grantDue(state, 0).map((grant) => grant.atMs)).toEqual([500]);
    for (let index = 0; index < 20; index++) enqueue(state, request(`more${index}`), 0);
    const granted = grantDue(state, 0);
    expect(Math.max(...granted.map((grant) => grant.atMs))).toBeLessThanOrEqual(GRANT_HORIZON_MS);
    expect(state.queue.length).toBeGreaterThan(0);
  });

  it('serves tenants in turn: a tenant arriving behind 190 queued calls is served within two intervals a call', () => {
    const state = newLimiterState({});
    for (let index = 0; index < 190; index++) enqueue(state, request(`big${index}`, 'big'), 0);
    for (let index = 0; index < 10; index++) enqueue(state, request(`small${index}`, 'small'), 0);
    const order = drain(state);
    const smallTimes = order.filter((grant) => grant.id.startsWith('small')).map((grant) => grant.atMs);
    expect(smallTimes).toHaveLength(10);
    // The tenants alternate: the small tenant's 10th call goes by the 20th grant (1.9 s at 100 ms).
    expect(Math.max(...smallTimes)).toBeLessThanOrEqual(19 * 100);
  });

  it('serves a lower priority key first, whatever its tenant', () => {
    const state = newLimiterState({});
    enqueue(state, request('batch', 'a', 5), 0);
    enqueue(state, request('urgent', 'a', 1), 0);
    enqueue(state, request('normal', 'b', 3), 0);
    expect(drain(state).map((grant) => grant.id)).toEqual(['urgent', 'normal', 'batch']);
  });

  it('charges tokens at grant and corrects them by the usage reported', () => {
    const limit = { tokensPerMinute: 60_000 };
    const state = newLimiterState(limit);
    enqueue(state, request('a', '', 3, 4_000, limit), 0);
    enqueue(state, request('b', '', 3, 4_000, limit), 0);
    // 4,000 tokens of 60,000 a minute: 4 s before the next call may go (beyond the horizon).
    expect(grantDue(state, 0).map((grant) => grant.atMs)).toEqual([0]);
    expect(state.tokensFreeAtMs).toBe(4_000);
    // The call used 500 tokens: 3.5 s of the schedule are given back.
    recordUsage(state, { requestId: 'a', tokens: 500 });
    expect(state.tokensFreeAtMs).toBe(500);
    expect(state.totals.correctedTokens).toBe(-3_500);
    expect(grantDue(state, 0).map((grant) => grant.atMs)).toEqual([500]);
  });

  it('holds every call until the pause a 429 asked for', () => {
    const state = newLimiterState({ requestsPerMinute: 600 });
    recordPause(state, { requestId: 'x', untilMs: 5_000 });
    enqueue(state, request('a'), 0);
    expect(grantDue(state, 0)).toEqual([]);
    expect(nextWakeMs(state, 0)).toBe(5_000 - GRANT_HORIZON_MS / 2);
    expect(grantDue(state, 4_500).map((grant) => grant.atMs)).toEqual([5_000]);
    expect(limiterStatus(state, 0)).toMatchObject({ queued: 0, pausedUntilMs: 5_000, totals: { pauses: 1, granted: 1 } });
    // After the 429 the rate is cut to 90% (111 ms apart instead of 100), and regained call by call.
    enqueue(state, request('b'), 0);
    const [next] = grantDue(state, 4_500);
    expect(next!.atMs).toBeCloseTo(5_000 + 100 / 0.9, 0);
    expect(state.rateFactor).toBeCloseTo(0.9 + 2 * 0.002, 5);
  });

  it('answers a repeated request once and is idle with nothing queued or outstanding', () => {
    const limit = { requestsPerMinute: 60, tokensPerMinute: 10_000 };
    const state = newLimiterState(limit);
    expect(enqueue(state, request('a', '', 3, 10, limit), 0)).toBe('queued');
    expect(enqueue(state, request('a', '', 3, 10, limit), 0)).toBe('queued-already');
    grantDue(state, 0);
    expect(enqueue(state, request('a', '', 3, 10, limit), 0)).toBe('granted-already');
    expect(isIdle(state)).toBe(false);
    recordUsage(state, { requestId: 'a', tokens: 10 });
    expect(isIdle(state)).toBe(true);
  });
});

describe('provider_limits and priority options', () => {
  it('accepts limits per model and names the field of a bad one', () => {
    const config = parseAgentConfig({ name: 'a', provider_limits: { 'openai:gpt-4o': { requests_per_minute: 500, tokens_per_minute: 30_000 } } });
    expect(config.provider_limits?.['openai:gpt-4o']).toEqual({ requests_per_minute: 500, tokens_per_minute: 30_000 });
    expect(() => parseAgentConfig({ name: 'a', provider_limits: { 'openai:gpt-4o': {} } })).toThrow(
      /provider_limits\.openai:gpt-4o: must set requests_per_minute, tokens_per_minute or both/,
    );
    expect(() => parseAgentConfig({ name: 'a', provider_limits: { 'openai:gpt-4o': { requests_per_minute: 0 } } })).toThrow(
      /provider_limits\.openai:gpt-4o\.requests_per_minute: must be more than 0/,
    );
    expect(() => parseAgentConfig({ name: 'a', provider_limits: { gpt: { requests_per_minute: 5 } } })).toThrow(
      /provider_limits\.gpt: must be "provider:model"/,
    );
    expect(() => parseAgentConfig({ name: 'a', provider_limits: { 'openai:gpt-4o': { request_per_minute: 5 } } })).toThrow(
      /did you mean requests_per_minute\?/,
    );
    // Absent, the config is as it was before limits existed (its hash does not change).
    expect('provider_limits' in parseAgentConfig({ name: 'a' })).toBe(false);
  });

  it('validates a run priority, naming the field', () => {
    expect(parseRunPriority({ priorityKey: 1, fairnessKey: 'tenant-a' })).toEqual({ priorityKey: 1, fairnessKey: 'tenant-a' });
    expect(() => parseRunPriority({ priorityKey: 7 })).toThrow(/priority\.priorityKey: must be 1 \(first\) to 5 \(last\)/);
    expect(() => parseRunPriority({ fairnessKey: 'x'.repeat(65) })).toThrow(/priority\.fairnessKey: must be at most 64 characters/);
    expect(() => parseRunPriority({ tenant: 'a' })).toThrow(/priority\.tenant: unknown field/);
  });
});

describe('when a 429 says to come back', () => {
  it('reads retry-after-ms, retry-after, then the latest rate-limit reset header', () => {
    expect(retryAfterMs({ 'retry-after-ms': '250' })).toBe(250);
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2_000);
    expect(retryAfterMs({ 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' })).toBe(360_000);
    expect(retryAfterMs({ 'x-ratelimit-reset-requests': '120ms' })).toBe(120);
    const inTwoSeconds = new Date(Date.now() + 2_000).toISOString();
    expect(retryAfterMs({ 'anthropic-ratelimit-requests-reset': inTwoSeconds })).toBeGreaterThan(1_000);
    expect(retryAfterMs({})).toBeUndefined();
  });
});
