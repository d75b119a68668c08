// The concurrency slots workflow: one per task queue and cap key, it lets at most `limit` runs hold a slot and queues the rest.
import { condition, getExternalWorkflowHandle, log, makeContinueAsNewFunc, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import {
  slotGrantSignal,
  slotReleaseSignal,
  slotRequestSignal,
  slotsStatusQuery,
  type ConcurrencySlotsInput,
  type SlotsState,
} from '../../protocol/concurrency-slots';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import { installVersionCheck, targetVersionChanged, versionMoveOptions } from '../versioning/version-moves';
import { dropGoneHolders, enqueueSlot, grantFreeSlots, newSlotsState, pruneSlots, releaseSlot, slotsIdle, slotsStatus } from './slot-schedule';

const DEFAULT_HOLDER_CHECK_MS = 30_000;
const DEFAULT_HISTORY_EVENT_LIMIT = 4_000;
const DEFAULT_IDLE_MS = 10 * 60_000;

/**
 * Holds the slots of one concurrency cap (`task queue/cap key`): runs ask with a signal (sent with
 * signal-with-start by the `requestConcurrencySlot` activity, so the first run starts it), wait
 * queued in priority then tenant-turn order (as the provider limiter serves them), and get a grant
 * signal when a slot is free. A run releases its slot with a signal when it ends, however it ends;
 * one that cannot (terminated, timed out) is found by checking the holders' runs while others wait
 * (the `checkSlotHolders` activity, every `holderCheckMs`). Its state lives in its history; it
 * continues as new on its own history and completes after a quiet spell with no holder. On a
 * versioned worker it is pinned to its build and moves to a new target build by continue-as-new
 * (holders and queue carried) once no holder check runs (docs/deployment.md).
 * @example
 * // Started for you by runs of an agent with `max_concurrent_runs` (or started with `concurrency`); to look at one:
 * // temporal workflow describe --workflow-id 'durable-agents-concurrency:agent-runs/agent:support'
 */
export async function concurrencySlots(input: ConcurrencySlotsInput): Promise<SlotsState> {
  const state = input.state ?? newSlotsState(0);
  const pendingSignals = new Set<Promise<void>>();
  let changed = false;
  const sendGrant = ({ workflowId, holderId, capKey }: { workflowId: string; holderId: string; capKey: string }) => {
    const sent = getExternalWorkflowHandle(workflowId)
      .signal(slotGrantSignal, { key: capKey, holderId })
      .catch((error: unknown) => {
        // The run ended (cancelled, terminated) while it waited: its slot is free again.
        log.info('concurrency: a grant found no run', { workflowId, holderId, error: String(error) });
        dropGoneHolders(state, [holderId]);
        changed = true;
      });
    pendingSignals.add(sent);
    void sent.finally(() => pendingSignals.delete(sent));
  };
  setHandler(slotRequestSignal, (request) => {
    // A run asking again while it holds its slot (its grant was lost) gets the grant again.
    if (enqueueSlot(state, request, Date.now()) === 'held') sendGrant(request);
    changed = true;
  });
  setHandler(slotReleaseSignal, (release) => {
    releaseSlot(state, release);
    changed = true;
  });
  setHandler(slotsStatusQuery, () => slotsStatus(state));
  installVersionCheck();
  const holderCheckMs = input.holderCheckMs ?? DEFAULT_HOLDER_CHECK_MS;
  const eventLimit = input.historyEventLimit ?? DEFAULT_HISTORY_EVENT_LIMIT;
  const idleMs = input.idleMs ?? DEFAULT_IDLE_MS;
  const checkHolders = proxyActivities<AgentActivities>({ startToCloseTimeout: '1m', retry: infrastructureRetryPolicy(10_000) }).checkSlotHolders;
  let lastCheckMs = Date.now();
  // The holder check runs beside the loop: grants and releases go on while it describes runs.
  let checking: Promise<void> | null = null;
  const startCheck = () => {
    lastCheckMs = Date.now();
    const holders = state.holders.map(({ holderId, workflowId, firstExecutionRunId }) => ({ holderId, workflowId, firstExecutionRunId }));
    checking = checkHolders(holders).then((gone) => {
      if (gone.length > 0) log.info('concurrency: freed the slots of runs that ended without releasing them', { key: input.key, gone });
      dropGoneHolders(state, gone);
      checking = null;
      changed = true;
    });
  };
  for (;;) {
    changed = false;
    for (const request of grantFreeSlots(state, Date.now())) sendGrant(request);
    const info = workflowInfo();
    if (info.historyLength >= eventLimit || info.continueAsNewSuggested || targetVersionChanged()) {
      await checking;
      await Promise.all([...pendingSignals]);
      await condition(() => pendingSignals.size === 0);
      pruneSlots(state);
      await makeContinueAsNewFunc<typeof concurrencySlots>(versionMoveOptions(targetVersionChanged()))({ ...input, state });
    }
    // Holders are checked often while runs wait for a slot, and now and then otherwise (so that a
    // holder terminated long ago does not keep the workflow open for ever).
    const waiting = state.queue.length > 0 && state.holders.length >= state.limit;
    const untilCheckMs = lastCheckMs + (waiting ? holderCheckMs : idleMs) - Date.now();
    if (state.holders.length > 0 && untilCheckMs <= 0 && !checking) {
      startCheck();
      continue;
    }
    if (checking) {
      // Its end wakes the loop (as a signal does); no timer meanwhile.
      await condition(() => changed);
      continue;
    }
    // The version flag wakes it too (a `checkVersion` signal brings it): the move happens above.
    const woken = await condition(() => changed || targetVersionChanged(), state.holders.length > 0 ? Math.max(1, untilCheckMs) : idleMs);
    if (woken || state.holders.length > 0) continue;
    pruneSlots(state);
    if (slotsIdle(state) && pendingSignals.size === 0) return state;
  }
}
