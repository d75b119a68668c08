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
}

/** Where a resource's threads are deleted: `AgentClient` is one (it reaches Temporal and the artifact store). */
export interface ResourceThreadStore {
  deleteThreadsOf(resource: string): Promise<ResourceThreadsDeleted>;
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
}

/**
 * Deletes everything stored about `resource` (a user, a team), for a request to be forgotten: every
 * memory entry of the resource, and with `threads`, every thread created with this `resourceId`
 * (its artifacts, then its workflow executions). Not deleted: runs started with the resource id
 * (`startRun({ resourceId })`, not found by resource; delete them with Temporal's tools), and what
 * Temporal keeps after a delete until its own cleanup (docs/memory.md). Idempotent: a second call
 * deletes nothing more.
 * @throws MemoryInputError for an invalid resource id; MemoryUnavailableError when a store is down;
 * AgentConfigError when the thread store has no artifact store to delete from.
 * @example
 * import { AgentClient } from 'durable-agents';
 * import { artifactStoreFromEnvironment, forgetResource, memoryStoreFromEnvironment } from 'durable-agents/worker';
 *
 * const memory = memoryStoreFromEnvironment();
 * const agents = await AgentClient.connect(undefined, { artifacts: artifactStoreFromEnvironment() });
 * const report = await forgetResource('user:42', { memory, threads: agents });
 * // { resource: 'user:42', memoryEntries: 7, threads: 2, threadArtifacts: 5, workflowExecutions: 3 }
 * await memory.close();
 * await agents.close();
 */
export async function forgetResource(resource: string, stores: ResourceStores): Promise<ForgetResourceReport> {
  const memoryEntries = await stores.memory.forgetResource(resource);
  const threads = stores.threads ? await stores.threads.deleteThreadsOf(resource) : null;
  return {
    resource,
    memoryEntries,
    threads: threads?.threads ?? null,
    threadArtifacts: threads?.artifacts ?? null,
    workflowExecutions: threads?.workflowExecutions ?? null,
  };
}
