// The provider limiter's decisions, pure: which queued call goes next, when it may go, and how usage and 429s move the schedule.
import { forgetIdleTenants, nextInTurn, recordTurn } from './tenant-turns';
import type {
  LimiterState,
  LimiterStatus,
  LimitPause,
  LimitRequest,
  LimitUsage,
  ProviderLimit,
  QueuedLimitRequest,
} from '../../protocol/provider-limits';

/**
 * The limiter is GCRA (the generic cell rate algorithm) on two dimensions: each grant moves the
 * "free at" time of requests by one request's share of a minute and that of tokens by the call's
 * estimated tokens' share; a call may go at the later of the two (and of a 429's pause). Only
 * {@link CATCH_UP_MS} of burst is kept across idle time, so no window of a minute sees more than
 * the limit plus one call plus that much. Grants are reservations: a call is granted at most
 * {@link GRANT_HORIZON_MS} ahead, so a tenant that arrives later is never behind a long line of
 * reservations (docs/provider-limits.md).
 */
export const GRANT_HORIZON_MS = 1_000;
/**
 * How far the schedule may fall behind the clock and still be caught up: a limiter that woke late
 * (a slow workflow task) grants the calls it owes at once instead of losing that time, so no
 * window of a minute holds more than the limit plus this much (see docs/provider-limits.md).
 */
export const CATCH_UP_MS = 250;
/** Each 429 cuts the granted rate to this share of what it was (never below {@link MINIMUM_RATE_FACTOR})... */
export const RATE_CUT = 0.9;
export const MINIMUM_RATE_FACTOR = 0.5;
/** ...and each grant after it gives back this much of the declared rate, up to all of it (10% in 50 calls). */
export const RATE_RECOVERY = 0.002;
/** Granted calls whose usage never came back (their run ended) are forgotten after this long. */
export const OUTSTANDING_TTL_MS = 15 * 60_000;
const MINUTE_MS = 60_000;

/** A fresh limiter's state under `limit`. */
export function newLimiterState(limit: ProviderLimit): LimiterState {
  return {
    limit,
    requestsFreeAtMs: 0,
    tokensFreeAtMs: 0,
    pausedUntilMs: 0,
    queue: [],
    lastServed: {},
    serveCount: 0,
    outstanding: {},
    totals: { granted: 0, pauses: 0, correctedTokens: 0 },
  };
}

/** Queues a request; false when it is a repeat (already queued or granted: the caller re-sends the grant). */
export function enqueue(state: LimiterState, request: LimitRequest, nowMs: number): 'queued' | 'queued-already' | 'granted-already' {
  if (state.outstanding[request.requestId]) return 'granted-already';
  if (state.queue.some((queued) => queued.requestId === request.requestId)) return 'queued-already';
  state.limit = request.limit;
  state.queue.push({ ...request, queuedAtMs: nowMs });
  return 'queued';
}

/**
 * The next queued call to serve: the lowest priority key first; among those, the tenant served
 * longest ago (a tenant never served before goes first; weighted turns: `tenant-turns.ts`), and
 * that tenant's oldest request.
 */
export function nextRequest(state: LimiterState): QueuedLimitRequest | null {
  return nextInTurn(state.queue, state);
}

/**
 * The earliest time the next call may go (epoch ms). Its own tokens are charged after it goes
 * (GCRA), so a call bigger than a minute's tokens still goes once the schedule has caught up.
 */
export function earliestStart(state: LimiterState, nowMs: number): number {
  const tokensReady = state.limit.tokensPerMinute !== undefined ? state.tokensFreeAtMs : 0;
  return Math.max(nowMs, state.requestsFreeAtMs, tokensReady, state.pausedUntilMs);
}

/** Serves `request` at `atMs`: removes it from the queue and moves the schedule. */
export function grant(state: LimiterState, request: QueuedLimitRequest, atMs: number): void {
  state.queue = state.queue.filter((queued) => queued.requestId !== request.requestId);
  const { requestsPerMinute, tokensPerMinute } = state.limit;
  // A provider that refused calls gets fewer for a while (additive increase, multiplicative decrease).
  const factor = state.rateFactor ?? 1;
  if (requestsPerMinute !== undefined)
    state.requestsFreeAtMs = Math.max(state.requestsFreeAtMs, atMs - CATCH_UP_MS) + MINUTE_MS / (requestsPerMinute * factor);
  if (tokensPerMinute !== undefined)
    state.tokensFreeAtMs = Math.max(state.tokensFreeAtMs, atMs - CATCH_UP_MS) + (request.estimatedTokens * MINUTE_MS) / (tokensPerMinute * factor);
  if (factor < 1) state.rateFactor = Math.min(1, factor + RATE_RECOVERY);
  recordTurn(state, request, state.queue);
  // Only a token limit corrects its estimate later; a request limit forgets the call once granted
  // (a request repeated after its grant, by an activity retried after it signalled, is served twice).
  if (tokensPerMinute !== undefined) state.outstanding[request.requestId] = { estimatedTokens: request.estimatedTokens, grantedAtMs: atMs };
  state.totals.granted++;
}

/**
 * Every call that may be granted now (within the horizon), in serving order, with its time.
 * The state moves as each is granted.
 */
export function grantDue(state: LimiterState, nowMs: number): Array<{ request: QueuedLimitRequest; atMs: number }> {
  const granted: Array<{ request: QueuedLimitRequest; atMs: number }> = [];
  for (let next = nextRequest(state); next; next = nextRequest(state)) {
    const atMs = earliestStart(state, nowMs);
    if (atMs > nowMs + GRANT_HORIZON_MS) break;
    grant(state, next, atMs);
    granted.push({ request: next, atMs });
  }
  return granted;
}

/** When the limiter should look again: half a horizon before the next call may go, or null with nothing queued. */
export function nextWakeMs(state: LimiterState, nowMs: number): number | null {
  const next = nextRequest(state);
  if (!next) return null;
  return Math.max(nowMs, earliestStart(state, nowMs) - GRANT_HORIZON_MS / 2);
}

/** Corrects the token schedule by what a call really used (its estimate was charged at grant). */
export function recordUsage(state: LimiterState, usage: LimitUsage): void {
  const outstanding = state.outstanding[usage.requestId];
  if (!outstanding) return;
  delete state.outstanding[usage.requestId];
  const { tokensPerMinute } = state.limit;
  if (tokensPerMinute === undefined) return;
  const difference = usage.tokens - outstanding.estimatedTokens;
  state.tokensFreeAtMs += (difference * MINUTE_MS) / tokensPerMinute;
  state.totals.correctedTokens += difference;
}

/** A 429 seen by one call holds every call until its retry-after; the call itself is asked again. */
export function recordPause(state: LimiterState, pause: LimitPause): void {
  delete state.outstanding[pause.requestId];
  if (pause.untilMs > state.pausedUntilMs) state.pausedUntilMs = pause.untilMs;
  state.rateFactor = Math.max(MINIMUM_RATE_FACTOR, (state.rateFactor ?? 1) * RATE_CUT);
  // The schedule restarts at the pause's end: no catching up on the time the provider refused.
  state.requestsFreeAtMs = Math.max(state.requestsFreeAtMs, pause.untilMs);
  state.tokensFreeAtMs = Math.max(state.tokensFreeAtMs, pause.untilMs);
  state.totals.pauses++;
}

/** Forgets outstanding calls too old to report (their run ended without reporting) and tenants with nothing queued. */
export function pruneState(state: LimiterState, nowMs: number): void {
  for (const [requestId, outstanding] of Object.entries(state.outstanding)) {
    if (nowMs - outstanding.grantedAtMs > OUTSTANDING_TTL_MS) delete state.outstanding[requestId];
  }
  // Turns only order tenants relative to each other: a tenant with nothing queued restarts as new.
  forgetIdleTenants(state, state.queue);
}

/** Whether the limiter has nothing left to do. */
export function isIdle(state: LimiterState): boolean {
  return state.queue.length === 0 && Object.keys(state.outstanding).length === 0;
}

/** The limiter's status query answer. */
export function limiterStatus(state: LimiterState, nowMs: number): LimiterStatus {
  const queuedByTenant: Record<string, number> = {};
  for (const request of state.queue) queuedByTenant[request.fairnessKey] = (queuedByTenant[request.fairnessKey] ?? 0) + 1;
  return {
    limit: state.limit,
    queued: state.queue.length,
    queuedByTenant,
    outstanding: Object.keys(state.outstanding).length,
    pausedUntilMs: state.pausedUntilMs > nowMs ? state.pausedUntilMs : null,
    rateFactor: state.rateFactor ?? 1,
    totals: { ...state.totals },
  };
}
