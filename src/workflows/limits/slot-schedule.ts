// The concurrency slots' decisions, pure: who is queued, who gets the next free slot, what a release or a vanished holder frees.
import type { QueuedSlotRequest, SlotRelease, SlotRequest, SlotsState, SlotsStatus } from '../../protocol/concurrency-slots';
import { forgetIdleTenants, nextInTurn, recordTurn } from './tenant-turns';

/** A fresh slots state under `limit`. */
export function newSlotsState(limit: number): SlotsState {
  return { limit, holders: [], queue: [], lastServed: {}, serveCount: 0, totals: { granted: 0, released: 0, holdersGone: 0 } };
}

/**
 * Queues a request: `held` when its run chain holds a slot already (a retried request activity, or
 * a run asking again after a lost grant: the caller sends the grant again), `queued-already` when it
 * waits already. The newest request's limit applies.
 */
export function enqueueSlot(state: SlotsState, request: SlotRequest, nowMs: number): 'queued' | 'queued-already' | 'held' {
  state.limit = request.limit;
  if (state.holders.some((holder) => holder.holderId === request.holderId)) return 'held';
  if (state.queue.some((queued) => queued.holderId === request.holderId)) return 'queued-already';
  state.queue.push({ ...request, queuedAtMs: nowMs });
  return 'queued';
}

/**
 * Fills the free slots from the queue: priority first, then tenants in (weighted) turn, each
 * tenant's oldest request first (`tenant-turns.ts`). Returns the requests granted, in order.
 */
export function grantFreeSlots(state: SlotsState, nowMs: number): QueuedSlotRequest[] {
  const granted: QueuedSlotRequest[] = [];
  while (state.holders.length < state.limit) {
    const next = nextInTurn(state.queue, state);
    if (!next) break;
    state.queue = state.queue.filter((queued) => queued.holderId !== next.holderId);
    recordTurn(state, next, state.queue);
    state.holders.push({
      capKey: next.capKey,
      holderId: next.holderId,
      workflowId: next.workflowId,
      firstExecutionRunId: next.firstExecutionRunId,
      grantedAtMs: nowMs,
    });
    state.totals.granted++;
    granted.push(next);
  }
  return granted;
}

/** A run that ended (or stopped waiting) frees its slot, or its place in the queue. */
export function releaseSlot(state: SlotsState, release: SlotRelease): void {
  const holding = state.holders.length;
  state.holders = state.holders.filter((holder) => holder.holderId !== release.holderId);
  if (state.holders.length < holding) state.totals.released++;
  state.queue = state.queue.filter((queued) => queued.holderId !== release.holderId);
}

/** Frees the slots of holders whose runs are found closed (terminated, timed out, or ended without releasing). */
export function dropGoneHolders(state: SlotsState, goneHolderIds: readonly string[]): void {
  const gone = new Set(goneHolderIds);
  const before = state.holders.length;
  state.holders = state.holders.filter((holder) => !gone.has(holder.holderId));
  state.totals.holdersGone += before - state.holders.length;
}

/** Forgets tenants with nothing queued. */
export function pruneSlots(state: SlotsState): void {
  forgetIdleTenants(state, state.queue);
}

/** Whether the slots workflow has nothing left to do. */
export function slotsIdle(state: SlotsState): boolean {
  return state.holders.length === 0 && state.queue.length === 0;
}

/** The status query's answer. */
export function slotsStatus(state: SlotsState): SlotsStatus {
  const queuedByTenant: Record<string, number> = {};
  for (const request of state.queue) queuedByTenant[request.fairnessKey] = (queuedByTenant[request.fairnessKey] ?? 0) + 1;
  return {
    limit: state.limit,
    holders: state.holders.map((holder) => holder.holderId),
    waiting: state.queue.slice(0, 100).map((request) => request.holderId),
    queued: state.queue.length,
    queuedByTenant,
    totals: { ...state.totals },
  };
}
