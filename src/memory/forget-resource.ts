// "Forget this user": deletes what the runtime keeps about a resource: its memory, and its threads' stored data and executions.
import type { MemoryStore } from './memory-store';

/** What deleting a resource's threads deleted (`AgentClient.deleteThreadsOf`). */
export interface ResourceThreadsDeleted {
  /** Threads deleted (each: its artifacts, then its executions). */
  threads: number;
  /** Artifacts deleted: the threads' own conversation snapshots (offloaded tool results are named by content and stay). */
  artifacts: number;
  /** Workflow executions deleted: every continue-as-new execution of the threads and their sub-agents' runs. */
  workflowExecutions: number;
  /**
   * Threads that were open and were terminated (their tool calls then running may still finish
   * on their workers). Absent from stores that do not say: `forgetResource` then counts every
   * deleted thread as open.
   */
  stopped?: number;
  /** The ids of the threads deleted (a later round of `forgetResource` skips them). */
  threadIds?: string[];
  /** Threads whose executions Temporal had not finished deleting when the store stopped waiting (it deletes asynchronously). */
  stillDeleting?: string[];
}

/** Where a resource's threads are deleted: `AgentClient` is one (it reaches Temporal and the artifact store). */
export interface ResourceThreadStore {
  /** Deletes the resource's threads but those in `skip` (deleted by an earlier round: Temporal may list them a moment longer). */
  deleteThreadsOf(resource: string, options?: { skip?: ReadonlySet<string> }): Promise<ResourceThreadsDeleted>;
}

/** The stores `forgetResource` deletes from. */
export interface ResourceStores {
  memory: MemoryStore;
  /** The resource's threads (by `AgentResource`); without it, threads are left alone (the report says null). */
  threads?: ResourceThreadStore;
}

/** What `forgetResource` deleted, a field per kind of data (null: that store was not given). */
export interface ForgetResourceReport {
  resource: string;
  /** Memory entries deleted. */
  memoryEntries: number;
  /** Threads of the resource deleted. */
  threads: number | null;
  /** Their artifacts deleted (their own conversation snapshots). */
  threadArtifacts: number | null;
  /** Their workflow executions deleted (each continue-as-new execution, sub-agent runs). */
  workflowExecutions: number | null;
  /** True when nothing is left to delete; false when `pending` names what is. */
  complete: boolean;
  /** What may still be stored after the call, each said in words (empty when `complete`). */
  pending: string[];
}

/** How long `forgetResource` watches the memory after stopping threads (docs/memory.md). */
export interface ForgetResourceOptions {
  /**
   * Milliseconds with no new memory entry after which the memory counts as settled, once a thread
   * of the resource was stopped (default 3,000): a memory tool call that was running when its
   * thread stopped still completes on its worker, and what it stores is deleted too.
   */
  settleMs?: number;
  /** Milliseconds after which entries that keep appearing are reported in `pending` instead (default 30,000). */
  settleLimitMs?: number;
}

/** Rounds of "delete threads, then memory" before threads that keep appearing are reported as pending. */
const MAX_ROUNDS = 5;
const SWEEP_INTERVAL_MS = 250;

/**
 * Deletes everything stored about `resource` (a user, a team), for a request to be forgotten: with
 * `threads`, every thread created with this `resourceId` first (an open one is terminated: it
 * would store again; then its artifacts and workflow executions), then every memory entry of the
 * resource. When a thread was stopped, the memory is deleted again until no entry appeared for
 * `settleMs` (a memory tool call that was running finishes on its worker all the same), and the
 * threads are listed again (a thread created meanwhile is deleted too). When the call returns,
 * nothing is left (`complete: true`), or `pending` says what still appeared. Not deleted: runs
 * started with the resource id (`startRun({ resourceId })`, not found by resource; delete them
 * with Temporal's tools), and what Temporal keeps after a delete until its own cleanup
 * (docs/memory.md). Idempotent: a second call deletes nothing more.
 * @throws MemoryInputError for an invalid resource id; MemoryUnavailableError when a store is down;
 * AgentConfigError when the thread store has no artifact store to delete from.
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { artifactStoreFromEnvironment, forgetResource, memoryStoreFromEnvironment } from 'durable-agents/worker';
 *
 * const memory = memoryStoreFromEnvironment();
 * const agents = await AgentClient.connect(undefined, { artifacts: artifactStoreFromEnvironment() });
 * const report = await forgetResource('user:42', { memory, threads: agents });
 * // { resource: 'user:42', memoryEntries: 7, threads: 2, threadArtifacts: 5, workflowExecutions: 3, complete: true, pending: [] }
 * await memory.close();
 * await agents.close();
 */
export async function forgetResource(resource: string, stores: ResourceStores, options: ForgetResourceOptions = {}): Promise<ForgetResourceReport> {
  const deleted = { threads: 0, artifacts: 0, workflowExecutions: 0 };
  const pending: string[] = [];
  let memoryEntries = 0;
  const done = new Set<string>();
  for (let round = 1; ; round++) {
    // Threads first: an open thread of the resource stores memories until it is stopped.
    const threads = stores.threads ? await stores.threads.deleteThreadsOf(resource, { skip: done }) : null;
    for (const id of threads?.threadIds ?? []) done.add(id);
    if (threads?.stillDeleting?.length)
      pending.push(
        `threads: Temporal has not finished deleting ${threads.stillDeleting.join(', ')} (it deletes executions asynchronously): they are described until it has`,
      );
    deleted.threads += threads?.threads ?? 0;
    deleted.artifacts += threads?.artifacts ?? 0;
    deleted.workflowExecutions += threads?.workflowExecutions ?? 0;
    const stopped = threads ? (threads.stopped ?? threads.threads) : 0;
    const swept = await sweepMemory(stores.memory, resource, stopped > 0 ? (options.settleMs ?? 3_000) : 0, options.settleLimitMs ?? 30_000);
    memoryEntries += swept.deleted;
    if (!swept.settled)
      pending.push(
        `memory: entries of ${resource} were still being stored ${Math.round((options.settleLimitMs ?? 30_000) / 1_000)} s after its threads stopped (a tool call still running on a worker): run forget again`,
      );
    // Nothing was stopped this round: nothing can store any more (the first round of a resource without open threads).
    if (stopped === 0 || !swept.settled) break;
    if (round === MAX_ROUNDS) {
      pending.push(`threads: new threads of ${resource} kept appearing (${MAX_ROUNDS} rounds): stop what creates them, then run forget again`);
      break;
    }
  }
  return {
    resource,
    memoryEntries,
    threads: stores.threads ? deleted.threads : null,
    threadArtifacts: stores.threads ? deleted.artifacts : null,
    workflowExecutions: stores.threads ? deleted.workflowExecutions : null,
    complete: pending.length === 0,
    pending,
  };
}

/**
 * Deletes the resource's memory, then again every `SWEEP_INTERVAL_MS` until no entry appeared for
 * `settleMs` (0: once). Unsettled when entries still appeared after `limitMs`.
 */
async function sweepMemory(memory: MemoryStore, resource: string, settleMs: number, limitMs: number): Promise<{ deleted: number; settled: boolean }> {
  let deleted = await memory.forgetResource(resource);
  const giveUpAt = Date.now() + limitMs;
  for (let quietSince = Date.now(); Date.now() - quietSince < settleMs;) {
    if (Date.now() >= giveUpAt) return { deleted, settled: false };
    await new Promise((resolve) => setTimeout(resolve, SWEEP_INTERVAL_MS));
    const late = await memory.forgetResource(resource);
    if (late > 0) {
      deleted += late;
      quietSince = Date.now();
    }
  }
  return { deleted, settled: true };
}
