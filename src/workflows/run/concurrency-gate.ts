// A run under concurrency caps: it waits for a slot of each cap before its first step, keeps them through continue-as-new, and releases them when it ends.
import {
  CancellationScope,
  condition,
  ContinueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import {
  agentCapKey,
  concurrencySlotsWorkflowId,
  slotGrantSignal,
  slotReleaseSignal,
  startCapKey,
  type ConcurrencyCap,
  type HeldSlot,
} from '../../protocol/concurrency-slots';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import { activitySummary } from '../rules/activity-summary';
import { priorityOfRun } from '../loop/provider-limit-gate';
import { enterPhase } from '../loop/run-lifecycle';
import type { RunState } from './run-state';

/** How long a run waits for its slot before it asks again (a slots workflow terminated by hand lost its queue). */
const REASK_AFTER_MS = 5 * 60_000;

/** The slots each run holds (or asked for), by run: what a continuation carries and the end releases. */
const slotBooks = new WeakMap<RunState, HeldSlot[]>();

/** The caps a fresh run of this config and input is under: its agent's `max_concurrent_runs`, then its start's `concurrency`. */
export function capsOfRun(state: RunState): ConcurrencyCap[] {
  const caps: ConcurrencyCap[] = [];
  const agentLimit = state.config.max_concurrent_runs;
  if (agentLimit !== undefined) caps.push({ key: agentCapKey(state.config.name), limit: agentLimit });
  const ownCap = state.execution.input.concurrency;
  if (ownCap) caps.push({ key: startCapKey(ownCap.key), limit: ownCap.limit });
  return caps;
}

/**
 * Runs `body` (the whole run) holding a slot of each of the run's concurrency caps. A fresh run asks each cap's
 * slots workflow in a fixed order (agent, then key: no two runs wait for each other's slots) and
 * waits (phase `concurrency_slot`) for each grant; an execution that continues a run holds what
 * its chain acquired (`heldSlots` of its input) and acquires nothing. The slots are released when
 * the run ends, however it ends (completed, failed, cancelled, even while still waiting), except by
 * continuing as new; a terminated run cannot release, and its slots workflow finds it gone.
 */
export async function withConcurrencySlots<Result>(state: RunState, body: () => Promise<Result>): Promise<Result> {
  const carriedSlots = state.execution.input.heldSlots ?? [];
  const caps = state.execution.input.carried ? [] : capsOfRun(state);
  if (caps.length === 0 && carriedSlots.length === 0) return body();
  const slots = [...carriedSlots];
  slotBooks.set(state, slots);
  let continuing = false;
  try {
    const info = workflowInfo();
    const holderId = `${info.workflowId}/${info.firstExecutionRunId}`;
    const granted = grantedKeys(holderId);
    for (const [index, cap] of caps.entries()) {
      // Listed before asking: a run cancelled while it waits gives its place in the queue back.
      slots.push({ ...cap, holderId });
      await acquireSlot(state, cap, holderId, index + 1, granted);
    }
    return await body();
  } catch (error) {
    if (error instanceof ContinueAsNew) continuing = true;
    throw error;
  } finally {
    if (!continuing) await CancellationScope.nonCancellable(() => releaseSlots(slots));
  }
}

/** What the next execution of the run carries: the slots its chain holds. */
export function slotsToCarry(state: RunState): { heldSlots?: HeldSlot[] } {
  const slots = slotBooks.get(state);
  return slots && slots.length > 0 ? { heldSlots: [...slots] } : {};
}

/** Asks for a slot of `cap` and waits for its grant, asking again every few minutes without one. */
async function acquireSlot(state: RunState, cap: ConcurrencyCap, holderId: string, capNumber: number, granted: Set<string>): Promise<void> {
  const info = workflowInfo();
  const phaseBefore = state.phase;
  state.concurrencySlotWait = { key: cap.key, limit: cap.limit, sinceMs: Date.now() };
  enterPhase(state, 'concurrency_slot');
  const activityId = `concurrency-slot-${capNumber}`;
  const ask = (asked: number) =>
    proxyActivities<AgentActivities>({
      activityId: asked === 1 ? activityId : `${activityId}.ask-${asked}`,
      summary: activitySummary(activityId, `wait for a slot of ${cap.key} (at most ${cap.limit} at once)`),
      startToCloseTimeout: '1m',
      retry: infrastructureRetryPolicy(10_000),
    }).requestConcurrencySlot({ cap, holderId, firstExecutionRunId: info.firstExecutionRunId, ...priorityOfRun() });
  const first = await ask(1);
  const reaskAfterMs = first.reaskAfterMs ?? REASK_AFTER_MS;
  for (let asked = 2; !(await condition(() => granted.has(cap.key), reaskAfterMs)); asked++) await ask(asked);
  state.concurrencySlotWait = undefined;
  enterPhase(state, phaseBefore);
}

/** The slots granted to this run chain (grants for another chain of the same workflow id are not its own). */
function grantedKeys(holderId: string): Set<string> {
  const granted = new Set<string>();
  setHandler(slotGrantSignal, (grant) => {
    if (grant.holderId === holderId) granted.add(grant.key);
  });
  return granted;
}

/** Tells each slots workflow the run is done with its slot (or its place in the queue); one that ended has nothing to free. */
async function releaseSlots(slots: readonly HeldSlot[]): Promise<void> {
  const { taskQueue } = workflowInfo();
  await Promise.all(
    slots.map((slot) =>
      getExternalWorkflowHandle(concurrencySlotsWorkflowId(taskQueue, slot.key))
        .signal(slotReleaseSignal, { holderId: slot.holderId })
        .catch(() => undefined),
    ),
  );
}
