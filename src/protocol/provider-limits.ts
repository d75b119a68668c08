// What crosses processes for provider limits: the limiter workflow's input and signals, and the grant agent runs receive.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ModelStepInput } from './activity-types';

/**
 * A provider limit (docs/provider-limits.md): requests and tokens per minute one model may take
 * from the provider account, shared by every run of a namespace and task queue. Either may be
 * absent (that dimension is not limited).
 */
export interface ProviderLimit {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

/** Temporal's priority keys go from 1 (first) to 5; runs without one are served as 3, as Temporal does. */
export const DEFAULT_PRIORITY_KEY = 3;
/** The fairness key of runs started without one: they share one turn among tenants. */
export const DEFAULT_FAIRNESS_KEY = '';

/** One model call that asks the limiter when it may go. */
export interface LimitRequest {
  /** Unique per call and try: `workflow id/run id/activity id`; a repeated request is answered once. */
  requestId: string;
  /** The run to signal the grant to (its current execution); empty for a request sent as an update (answered by it). */
  workflowId: string;
  /** Tokens the call is estimated to use (prompt counted, output at `max_tokens` or a default). */
  estimatedTokens: number;
  /** 1 (first) to 5 (last): Temporal's priority key of the run. */
  priorityKey: number;
  /** The tenant (Temporal's fairness key of the run): tenants of one priority are served in turn. */
  fairnessKey: string;
  /** The tenant's weight (Temporal's fairness weight of the run): its share of the turns (default 1). */
  fairnessWeight?: number;
  /** The limit as the run's config states it: the limiter applies the newest it was given. */
  limit: ProviderLimit;
}

/** When a call may go: the requester waits on a durable timer until `notBeforeMs` (epoch ms). */
export interface LimitGrant {
  requestId: string;
  notBeforeMs: number;
}

/** What a call really used, so the limiter corrects its estimate. */
export interface LimitUsage {
  requestId: string;
  tokens: number;
}

/** A 429 one call saw: every call on the key waits until `untilMs`. */
export interface LimitPause {
  requestId: string;
  untilMs: number;
}

/** A request waiting in the limiter's queue (what it was asked and when). */
export interface QueuedLimitRequest extends LimitRequest {
  queuedAtMs: number;
}

/** Everything a limiter knows; carried through continue-as-new. */
export interface LimiterState {
  limit: ProviderLimit;
  /** GCRA's theoretical arrival times: the next call may go at the later of the two. */
  requestsFreeAtMs: number;
  tokensFreeAtMs: number;
  /** A provider's retry-after holds every call until then. */
  pausedUntilMs: number;
  /** The share of the declared limit granted now: cut by each 429, regained call by call (absent: 1). */
  rateFactor?: number;
  queue: QueuedLimitRequest[];
  /** The turn each tenant was last served in: the tenant served longest ago goes next. */
  lastServed: Record<string, number>;
  serveCount: number;
  /** Grants a heavier tenant took in its current turn (`tenant-turns.ts`; absent while all weigh the same). */
  turnCredit?: Record<string, number>;
  /** Granted calls whose usage has not come back: their estimate, and when they were granted. */
  outstanding: Record<string, { estimatedTokens: number; grantedAtMs: number }>;
  /** Counters for `describe`: grants, 429 pauses, token corrections. */
  totals: { granted: number; pauses: number; correctedTokens: number };
}

/** The limiter workflow's input: its key and, after continue-as-new, its state. */
export interface ProviderLimiterInput {
  /** `task queue/provider:model`: what the limit is shared by. */
  key: string;
  state?: LimiterState;
  /** Continue as new after this many history events (default 4,000). */
  historyEventLimit?: number;
  /** Complete after this long with nothing queued nor outstanding (default 10 minutes). */
  idleMs?: number;
}

/**
 * Stable wire names of the provider limiter: its workflow type, the signals runs send it, the grant
 * it sends back, its status query.
 * @example
 * import { limiterStatusQuery, limiterWorkflowId, limitKey } from 'durable-agents/workflow';
 *
 * const limiter = client.workflow.getHandle(limiterWorkflowId(limitKey('agent-runs', 'openai:gpt-4o')));
 * const { queued, queuedByTenant } = await limiter.query(limiterStatusQuery);
 */
export const ProviderLimitWireName = {
  limiterWorkflow: 'providerLimiter',
  requestSignal: 'providerLimitRequest',
  usageSignal: 'providerLimitUsage',
  pauseSignal: 'providerLimitPause',
  grantSignal: 'providerLimitGranted',
  statusQuery: 'providerLimitStatus',
  reserveUpdate: 'providerLimitReserve',
} as const;

/** What a limiter is doing (its `providerLimitStatus` query): calls queued per tenant, the pause, the totals. */
export interface LimiterStatus {
  limit: ProviderLimit;
  queued: number;
  queuedByTenant: Record<string, number>;
  /** Granted calls whose usage has not come back yet. */
  outstanding: number;
  pausedUntilMs: number | null;
  /** The share of the declared limit granted now (below 1 for a while after a 429). */
  rateFactor: number;
  totals: LimiterState['totals'];
}

export const limitRequestSignal = defineSignal<[LimitRequest]>(ProviderLimitWireName.requestSignal);
export const limitUsageSignal = defineSignal<[LimitUsage]>(ProviderLimitWireName.usageSignal);
export const limitPauseSignal = defineSignal<[LimitPause]>(ProviderLimitWireName.pauseSignal);
/**
 * A limiter's status: calls queued (per tenant), outstanding, the pause a 429 set, totals.
 * @example const status = await client.workflow.getHandle(limiterWorkflowId(limitKey('agent-runs', 'openai:gpt-4o'))).query(limiterStatusQuery);
 */
export const limiterStatusQuery = defineQuery<LimiterStatus>(ProviderLimitWireName.statusQuery);
/**
 * A request answered by the update itself once granted (for model calls made inside an activity,
 * such as an instructions provider's, which cannot wait for a signal); its `workflowId` is empty.
 */
export const limitReserveUpdate = defineUpdate<LimitGrant, [LimitRequest]>(ProviderLimitWireName.reserveUpdate);
/** Sent by the limiter to the run that asked. */
export const limitGrantSignal = defineSignal<[LimitGrant]>(ProviderLimitWireName.grantSignal);

/**
 * The limiter's workflow id for a key: one limiter per task queue and model in a namespace.
 * @example limiterWorkflowId(limitKey('agent-runs', 'openai:gpt-4o')) // 'durable-agents-provider-limit:agent-runs/openai:gpt-4o'
 */
export function limiterWorkflowId(key: string): string {
  return `durable-agents-provider-limit:${key}`;
}

/**
 * The key calls to `model` from runs on `taskQueue` share.
 * @example limitKey('agent-runs', 'openai:gpt-4o') // 'agent-runs/openai:gpt-4o'
 */
export function limitKey(taskQueue: string, model: string): string {
  return `${taskQueue}/${model}`;
}

/** What the reservation activity gets: the model step it is for, and the run's priority and tenant. */
export interface ReserveModelCallInput {
  requestId: string;
  model: string;
  limit: ProviderLimit;
  priorityKey: number;
  fairnessKey: string;
  fairnessWeight?: number;
  /** The model step the call is for: its prompt is counted when the limit has `tokensPerMinute`. */
  step: ModelStepInput;
}
