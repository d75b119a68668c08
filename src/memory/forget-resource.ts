// "Forget this user": deletes what the runtime keeps about a resource. Today that is its memory;
// the report has a field per kind of data, so other stores (threads' snapshots) join it later.
import type { MemoryStore } from './memory-store';

/** The stores `forgetResource` deletes from. */
export interface ResourceStores {
  memory: MemoryStore;
}

/** What `forgetResource` deleted. */
export interface ForgetResourceReport {
  resource: string;
  /** Memory entries deleted. */
  memoryEntries: number;
}

/**
 * Deletes everything stored about `resource` (a user, a team) in the given stores, for a request to
 * be forgotten. Today: every memory entry of the resource. Not (yet): runs' histories, which
 * Temporal keeps until the namespace's retention ends, and artifacts, which are named by their
 * content and not by resource (docs/memory.md). Idempotent: a second call deletes nothing more.
 * @throws MemoryInputError for an invalid resource id; MemoryUnavailableError when a store is down.
 * @example
 * import { forgetResource, memoryStoreFromEnvironment } from 'durable-agents/worker';
 *
 * const memory = memoryStoreFromEnvironment();
 * const report = await forgetResource('user:42', { memory }); // { resource: 'user:42', memoryEntries: 7 }
 * await memory.close();
 */
export async function forgetResource(resource: string, stores: ResourceStores): Promise<ForgetResourceReport> {
  const memoryEntries = await stores.memory.forgetResource(resource);
  return { resource, memoryEntries };
}
