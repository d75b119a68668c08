// A run's model calls under its agent's provider limits: reserve a time from the shared limiter, wait for it durably, report usage and 429s.
import {
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  metricMeter,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { ErrorCode } from '../../protocol/errors';
import type { Usage } from '../../protocol/messages';
import type { ModelStepInput } from '../../protocol/run-types';
import {
  DEFAULT_FAIRNESS_KEY,
  DEFAULT_PRIORITY_KEY,
  limitGrantSignal,
  limitKey,
  limiterWorkflowId,
  limitPauseSignal,
  limitUsageSignal,
  type ProviderLimit,
} from '../../protocol/provider-limits';
import { retryDetailsOf } from './activity-retries';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import { activitySummary } from '../rules/activity-summary';
import { failureType } from '../rules/describe-failure';
import { enterPhase, showDetails } from './run-lifecycle';
import type { LoopState } from './loop-state';

/** 429s one call may meet under a limit before the run fails (each waits for the limiter again first). */
export const PROVIDER_LIMIT_TRIES = 20;
/** How long a run waits for its grant before it asks the limiter again. */
const REASK_AFTER_MS = 5 * 60_000;
/** How long every call on the key waits after a 429 that said nothing of when to come back. */
const PAUSE_WITHOUT_RETRY_AFTER_MS = 1_000;

/** Grants each run received, by request id (module state is per workflow: a WeakMap keyed by the run). */
const grantBooks = new WeakMap<LoopState, Map<string, number>>();

/** The agent's limit for `model`, if its config declares one. */
export function providerLimitOf(state: LoopState, model: string): ProviderLimit | null {
  const declared = state.config.provider_limits?.[model];
  if (!declared) return null;
  return {
    ...(declared.requests_per_minute !== undefined ? { requestsPerMinute: declared.requests_per_minute } : {}),
    ...(declared.tokens_per_minute !== undefined ? { tokensPerMinute: declared.tokens_per_minute } : {}),
  };
}

/** Whether a call to `model` waits for the provider limiter: the agent declares a limit for the model. */
export function providerLimitApplies(state: LoopState, model: string): boolean {
  return providerLimitOf(state, model) !== null;
}

/**
 * Runs one model call (`call`, given the activity id of this try) within the provider limit of
 * `request.model` (a model step or compaction's summary call), when the agent declares one;
 * otherwise just calls it. `request` is what the limiter's token estimate counts
 * (the conversation and tools). The run asks the limiter for a time (the `reserveModelCall` activity),
 * waits for the grant and then on a durable timer (status: `provider_limit`), calls, and reports
 * what the call used. A 429 pauses the limiter for everyone until its retry-after and the call asks
 * again (activity id `….limited-N`); it is not one of the call's `max_retries` tries.
 */
export async function withinProviderLimit<Reply extends { usage: Usage }>(
  state: LoopState,
  request: ModelStepInput,
  activityId: string,
  call: (activityId: string, limited: boolean) => Promise<Reply>,
): Promise<Reply> {
  const limit = providerLimitOf(state, request.model);
  if (!limit) return call(activityId, false);
  const info = workflowInfo();
  const key = limitKey(info.taskQueue, request.model);
  const limiter = getExternalWorkflowHandle(limiterWorkflowId(key));
  const grants = grantBookOf(state);
  for (let tryNumber = 1; ; tryNumber++) {
    const callId = tryNumber === 1 ? activityId : `${activityId}.limited-${tryNumber}`;
    const requestId = `${info.workflowId}/${info.runId}/${callId}`;
    const phaseBefore = state.phase;
    state.providerLimitWait = { model: request.model, sinceMs: Date.now(), untilMs: null };
    enterPhase(state, 'provider_limit');
    const reserve = (ask: number) =>
      proxyActivities<AgentActivities>({
        activityId: ask === 1 ? `${callId}.limit` : `${callId}.limit-${ask}`,
        summary: activitySummary(`${callId}.limit`, `wait for the provider limit of ${request.model}`),
        startToCloseTimeout: '1m',
        retry: infrastructureRetryPolicy(10_000),
      }).reserveModelCall({ requestId, model: request.model, limit, step: request, ...priorityOfRun() });
    // The worker may shorten the wait before asking again (tests that lose a limiter on purpose).
    const reaskAfterMs = (await reserve(1)).reaskAfterMs ?? REASK_AFTER_MS;
    // Asked again (same request id) while no grant comes: the limiter ignores a request it holds and
    // queues one it lost (a limiter terminated by hand starts afresh), so no run waits for ever.
    for (let ask = 2; !(await condition(() => grants.has(requestId), reaskAfterMs)); ask++) await reserve(ask);
    const notBeforeMs = grants.get(requestId)!;
    grants.delete(requestId);
    const waitMs = notBeforeMs - Date.now();
    countWait(request.model, Date.now() + Math.max(0, waitMs) - state.providerLimitWait.sinceMs);
    if (waitMs > 0) {
      state.providerLimitWait.untilMs = notBeforeMs;
      // Same phase, now with its end: the details say until when (no second status-changed event).
      showDetails(state, []);
      await sleep(waitMs);
    }
    state.providerLimitWait = undefined;
    enterPhase(state, phaseBefore === 'provider_limit' ? 'model' : phaseBefore);
    try {
      const reply = await call(callId, true);
      // Only a token limit has an estimate to correct: a request limit needs no report (one signal
      // fewer a call). Awaited: a signal still pending when the run completes is not sent.
      if (limit.tokensPerMinute !== undefined)
        await limiter.signal(limitUsageSignal, { requestId, tokens: reply.usage.inputTokens + reply.usage.outputTokens }).catch(ignoreEndedLimiter);
      return reply;
    } catch (error) {
      if (failureType(error) !== ErrorCode.modelRateLimited) throw error;
      const retryAfterMs = retryDetailsOf(error)?.retryAfterMs ?? PAUSE_WITHOUT_RETRY_AFTER_MS;
      metricMeter
        .createCounter('durable_agents.provider_limit.rate_limited', '{response}', 'Responses 429 to model calls under a provider limit')
        .add(1, { model: request.model });
      await limiter.signal(limitPauseSignal, { requestId, untilMs: Date.now() + retryAfterMs }).catch(ignoreEndedLimiter);
      if (tryNumber >= PROVIDER_LIMIT_TRIES) {
        throw ApplicationFailure.create({
          type: ErrorCode.modelRetriesExhausted,
          message: `Model step ${activityId} (${request.model}) was refused with 429 ${tryNumber} times, each after waiting for the provider limit: lower provider_limits.${request.model}`,
          nonRetryable: true,
          details: [{ attempts: tryNumber, lastFailureType: ErrorCode.modelRateLimited }],
          cause: error as Error,
        });
      }
    }
  }
}

/**
 * The run's priority, tenant and tenant weight as its starter gave them to Temporal (`priority`
 * option of the start); the weight only when set, so runs without one ask as before.
 */
export function priorityOfRun(): { priorityKey: number; fairnessKey: string; fairnessWeight?: number } {
  const priority = workflowInfo().priority;
  return {
    priorityKey: priority?.priorityKey ?? DEFAULT_PRIORITY_KEY,
    fairnessKey: priority?.fairnessKey ?? DEFAULT_FAIRNESS_KEY,
    ...(priority?.fairnessWeight !== undefined && priority.fairnessWeight !== 1 ? { fairnessWeight: priority.fairnessWeight } : {}),
  };
}

/** The run's grants, with the grant signal's handler registered at the first limited call. */
function grantBookOf(state: LoopState): Map<string, number> {
  let book = grantBooks.get(state);
  if (!book) {
    const grants = new Map<string, number>();
    setHandler(limitGrantSignal, (grant) => void grants.set(grant.requestId, grant.notBeforeMs));
    grantBooks.set(state, grants);
    book = grants;
  }
  return book;
}

function countWait(model: string, waitedMs: number): void {
  metricMeter.createCounter('durable_agents.provider_limit.waits', '{call}', 'Model calls that asked a provider limiter').add(1, { model });
  metricMeter
    .createHistogram('durable_agents.provider_limit.wait', 'int', 'ms', 'How long model calls waited for their provider limit')
    .record(Math.max(0, Math.round(waitedMs)), { model });
}

/** A limiter that completed (idle) or was terminated has nothing to correct: the next call starts a new one. */
function ignoreEndedLimiter(): void {}
