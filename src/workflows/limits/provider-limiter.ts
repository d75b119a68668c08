// The provider limiter workflow: one per task queue and model, it tells each model call of every run when it may go.
import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  log,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  limitGrantSignal,
  limitPauseSignal,
  limitRequestSignal,
  limitReserveUpdate,
  limitUsageSignal,
  limiterStatusQuery,
  type LimiterState,
  type ProviderLimiterInput,
} from '../../protocol/provider-limits';
import { installVersionCheck, targetVersionChanged, versionMoveOptions } from '../versioning/version-moves';
import { enqueue, grantDue, isIdle, limiterStatus, newLimiterState, nextWakeMs, pruneState, recordPause, recordUsage } from './limiter-schedule';

const DEFAULT_HISTORY_EVENT_LIMIT = 4_000;
const DEFAULT_IDLE_MS = 10 * 60_000;

/**
 * Serves the model calls of every run on one key (`task queue/provider:model`) within the
 * provider's requests and tokens per minute. Runs ask with a signal (sent with signal-with-start by
 * the `reserveModelCall` activity, so the first call starts it); the limiter answers each with a
 * grant signal saying when the call may go, in priority then tenant-turn order
 * (`limiter-schedule.ts`). Usage reports correct the token estimate; a 429's retry-after pauses
 * every call. It continues as new on its own history and completes after a quiet spell; a later
 * call starts it again. Its state lives only in its history: no service beyond Temporal. On a
 * versioned worker it is pinned to its build and moves to a new target build by continue-as-new as
 * soon as no reservation update waits for its grant (docs/deployment.md).
 * @example
 * // Started for you by runs whose agent config has `provider_limits`; to look at one:
 * // temporal workflow describe --workflow-id 'durable-agents-provider-limit:agent-runs/openai:gpt-4o'
 */
export async function providerLimiter(input: ProviderLimiterInput): Promise<LimiterState> {
  const state = input.state ?? newLimiterState({});
  const pendingSignals = new Set<Promise<void>>();
  let changed = false;
  const sendGrant = (workflowId: string, requestId: string, notBeforeMs: number) => {
    const sent = getExternalWorkflowHandle(workflowId)
      .signal(limitGrantSignal, { requestId, notBeforeMs })
      // The run ended (cancelled, terminated) while it waited: nothing to tell, its slot passes.
      .catch((error: unknown) => log.info('provider-limit: a grant found no run', { workflowId, requestId, error: String(error) }));
    pendingSignals.add(sent);
    void sent.finally(() => pendingSignals.delete(sent));
  };
  // Requests sent as updates (from activities) are answered when granted: their times, by request id.
  const updateGrants = new Map<string, number>();
  const pendingUpdate = () => state.queue.some((request) => request.workflowId === '');
  setHandler(limitReserveUpdate, async (request) => {
    if (enqueue(state, { ...request, workflowId: '' }, Date.now()) === 'granted-already')
      return { requestId: request.requestId, notBeforeMs: Date.now() };
    changed = true;
    await condition(() => updateGrants.has(request.requestId));
    return { requestId: request.requestId, notBeforeMs: updateGrants.get(request.requestId)! };
  });
  setHandler(limitRequestSignal, (request) => {
    const outcome = enqueue(state, request, Date.now());
    // A repeated request (its activity retried) gets its grant again; the run ignores duplicates.
    if (outcome === 'granted-already') sendGrant(request.workflowId, request.requestId, Date.now());
    changed = true;
  });
  setHandler(limitUsageSignal, (usage) => {
    recordUsage(state, usage);
    changed = true;
  });
  setHandler(limitPauseSignal, (pause) => {
    recordPause(state, pause);
    changed = true;
  });
  setHandler(limiterStatusQuery, () => limiterStatus(state, Date.now()));
  installVersionCheck();
  // A move waits for updates still owed a grant (their callers wait on this execution).
  const moveDue = () => targetVersionChanged() && !pendingUpdate();
  const eventLimit = input.historyEventLimit ?? DEFAULT_HISTORY_EVENT_LIMIT;
  const idleMs = input.idleMs ?? DEFAULT_IDLE_MS;
  for (;;) {
    changed = false;
    for (const { request, atMs } of grantDue(state, Date.now())) {
      if (request.workflowId === '') updateGrants.set(request.requestId, atMs);
      else sendGrant(request.workflowId, request.requestId, atMs);
    }
    const info = workflowInfo();
    // Updates still waiting for their grant are answered by this execution before it continues.
    if ((info.historyLength >= eventLimit || info.continueAsNewSuggested || moveDue()) && !pendingUpdate()) {
      await condition(allHandlersFinished);
      await Promise.all([...pendingSignals]);
      await condition(() => pendingSignals.size === 0);
      pruneState(state, Date.now());
      await makeContinueAsNewFunc<typeof providerLimiter>(versionMoveOptions(targetVersionChanged()))({ ...input, state });
    }
    const wake = nextWakeMs(state, Date.now());
    const timeout = wake === null ? idleMs : Math.max(1, wake - Date.now());
    const woken = await condition(() => changed || moveDue(), timeout);
    if (woken || wake !== null) continue;
    pruneState(state, Date.now());
    if (isIdle(state) && pendingSignals.size === 0 && allHandlersFinished()) return state;
  }
}
