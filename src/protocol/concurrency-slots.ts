// What crosses processes for concurrency caps: the slots workflow's input, state and signals, and the slot a run holds.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/**
 * A cap on runs at once (docs/provider-limits.md, "Concurrency caps"): at most `limit` runs hold a
 * slot of `key` at a time; the others wait, queued, in the slots workflow of their task queue.
 * `agent:<name>` for an agent's `max_concurrent_runs`, `key:<key>` for a start's `concurrency`.
 */
export interface ConcurrencyCap {
  key: string;
  limit: number;
}

/** A slot a run chain holds: carried through continue-as-new so the next execution releases it. */
export interface HeldSlot extends ConcurrencyCap {
  /** The run chain that holds it: `workflow id/first execution's run id`. */
  holderId: string;
}

/** A run asking for a slot of its cap. */
export interface SlotRequest {
  /** The cap's key (`agent:support`): the grant names it. */
  capKey: string;
  /** `workflow id/first execution's run id`: one slot a run chain, whatever its continue-as-new. */
  holderId: string;
  /** The run to signal the grant to (its current execution). */
  workflowId: string;
  firstExecutionRunId: string;
  /** The cap as the run's config or start states it: the slots workflow applies the newest it was given. */
  limit: number;
  /** 1 (first) to 5 (last): Temporal's priority key of the run. */
  priorityKey: number;
  /** The tenant: tenants of one priority are served in turn (weighted by `fairnessWeight`). */
  fairnessKey: string;
  fairnessWeight?: number;
}

/** A slot request waiting in the queue. */
export interface QueuedSlotRequest extends SlotRequest {
  queuedAtMs: number;
}

/** A run holding a slot, and since when. */
export interface SlotHolder {
  capKey: string;
  holderId: string;
  workflowId: string;
  firstExecutionRunId: string;
  grantedAtMs: number;
}

/** Sent to the run: its chain holds a slot of the cap `key` (`agent:support`). */
export interface SlotGrant {
  key: string;
  holderId: string;
}

/** Sent by a run that ends (or gives up waiting): its slot (or its place in the queue) is freed. */
export interface SlotRelease {
  holderId: string;
}

/** Everything a slots workflow knows; carried through continue-as-new. */
export interface SlotsState {
  limit: number;
  holders: SlotHolder[];
  queue: QueuedSlotRequest[];
  /** Tenant turns, as the provider limiter keeps them (`tenant-turns.ts`). */
  lastServed: Record<string, number>;
  serveCount: number;
  turnCredit?: Record<string, number>;
  /** Counters for its status query. */
  totals: { granted: number; released: number; holdersGone: number };
}

/** The slots workflow's input: its key and, after continue-as-new, its state. */
export interface ConcurrencySlotsInput {
  /** `task queue/cap key`: what the slots are shared by. */
  key: string;
  state?: SlotsState;
  /** How often, while runs wait, the holders are checked for runs that ended without releasing (default 30 s). */
  holderCheckMs?: number;
  /** Continue as new after this many history events (default 4,000). */
  historyEventLimit?: number;
  /** Complete after this long with no holder and nothing queued (default 10 minutes). */
  idleMs?: number;
}

/** What a slots workflow is doing (its status query). */
export interface SlotsStatus {
  limit: number;
  holders: string[];
  /** The first 100 waiting, in the order they were queued. */
  waiting: string[];
  queued: number;
  queuedByTenant: Record<string, number>;
  totals: SlotsState['totals'];
}

/** What the request activity gets: the cap and the run's priority. */
export interface RequestConcurrencySlotInput {
  cap: ConcurrencyCap;
  holderId: string;
  firstExecutionRunId: string;
  priorityKey: number;
  fairnessKey: string;
  fairnessWeight?: number;
}

/** A holder the slots workflow asks about: is its run chain still running? */
export interface SlotHolderCheck {
  holderId: string;
  workflowId: string;
  firstExecutionRunId: string;
}

/**
 * Stable wire names of concurrency caps: the slots workflow type, its signals and query, the grant.
 * @example
 * import { concurrencySlotsWorkflowId, slotsStatusQuery } from 'durable-agents/workflow';
 *
 * const slots = client.workflow.getHandle(concurrencySlotsWorkflowId('agent-runs', 'agent:support'));
 * const { holders, queued } = await slots.query(slotsStatusQuery);
 */
export const ConcurrencyWireName = {
  slotsWorkflow: 'concurrencySlots',
  requestSignal: 'concurrencySlotRequest',
  releaseSignal: 'concurrencySlotRelease',
  grantSignal: 'concurrencySlotGranted',
  statusQuery: 'concurrencySlotsStatus',
} as const;

export const slotRequestSignal = defineSignal<[SlotRequest]>(ConcurrencyWireName.requestSignal);
export const slotReleaseSignal = defineSignal<[SlotRelease]>(ConcurrencyWireName.releaseSignal);
export const slotGrantSignal = defineSignal<[SlotGrant]>(ConcurrencyWireName.grantSignal);
/**
 * A slots workflow's status: who holds its slots, how many wait (per tenant), totals.
 * @example const status = await client.workflow.getHandle(concurrencySlotsWorkflowId('agent-runs', 'agent:support')).query(slotsStatusQuery);
 */
export const slotsStatusQuery = defineQuery<SlotsStatus>(ConcurrencyWireName.statusQuery);

/**
 * The slots workflow's id for a cap key on a task queue: one per key in a namespace.
 * @example concurrencySlotsWorkflowId('agent-runs', 'agent:support') // 'durable-agents-concurrency:agent-runs/agent:support'
 */
export function concurrencySlotsWorkflowId(taskQueue: string, capKey: string): string {
  return `durable-agents-concurrency:${taskQueue}/${capKey}`;
}

/**
 * The cap key of an agent's `max_concurrent_runs`.
 * @example agentCapKey('support') // 'agent:support'
 */
export function agentCapKey(agentName: string): string {
  return `agent:${agentName}`;
}

/**
 * The cap key of a start's `concurrency.key`.
 * @example startCapKey('tenant-acme') // 'key:tenant-acme'
 */
export function startCapKey(key: string): string {
  return `key:${key}`;
}
