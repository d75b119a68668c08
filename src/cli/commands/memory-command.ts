// `memory list | search | forget`: a resource's memory, read and deleted in the store the workers
// use (AGENT_MEMORY_URL or AGENT_MEMORY_DIR in this environment too).
import { forgetResource } from '../../memory/forget-resource';
import { MemoryInputError, type MemoryEntry, type MemoryStore } from '../../memory/memory-store';
import { memoryStoreFromEnvironment } from '../../memory/memory-store-from-environment';

export interface MemoryListOptions {
  /** At most this many entries (`--limit`, default 20). */
  limit?: string;
  json?: boolean;
}

export interface MemoryForgetOptions {
  /** Delete only this entry (`--id`). */
  id?: string;
  json?: boolean;
}

/** `memory list RESOURCE`: the newest entries. */
export async function memoryListCommand(resource: string, options: MemoryListOptions, store?: MemoryStore): Promise<void> {
  await withStore(store, async (memory) => printEntries(resource, await memory.recall({ resource, limit: limitOf(options.limit) }), options));
}

/** `memory search RESOURCE QUERY`: entries with any of the query's words, best first (as the recall tool finds them). */
export async function memorySearchCommand(resource: string, query: string, options: MemoryListOptions, store?: MemoryStore): Promise<void> {
  if (!query.trim()) throw new MemoryInputError('query: give words to look for (memory list shows the newest entries)');
  await withStore(store, async (memory) => printEntries(resource, await memory.recall({ resource, text: query, limit: limitOf(options.limit) }), options));
}

/** `memory forget RESOURCE [--id ENTRY]`: deletes the resource's memory (every entry, or one). */
export async function memoryForgetCommand(resource: string, options: MemoryForgetOptions, store?: MemoryStore): Promise<void> {
  await withStore(store, async (memory) => {
    if (options.id !== undefined) {
      const deleted = await memory.forget({ resource, id: options.id });
      if (options.json) console.log(JSON.stringify({ resource, deleted: deleted.map((entry) => entry.id) }));
      else console.log(deleted.length > 0 ? `Forgot ${options.id} of ${resource}.` : `No memory ${options.id} for ${resource}: nothing deleted.`);
      return;
    }
    const report = await forgetResource(resource, { memory });
    if (options.json) console.log(JSON.stringify(report));
    else console.log(`Forgot ${resource}: ${report.memoryEntries} memory ${report.memoryEntries === 1 ? 'entry' : 'entries'} deleted.`);
  });
}

async function withStore(given: MemoryStore | undefined, use: (store: MemoryStore) => Promise<void>): Promise<void> {
  const store = given ?? memoryStoreFromEnvironment();
  try {
    await store.open();
    await use(store);
  } finally {
    if (!given) await store.close();
  }
}

function limitOf(limit: string | undefined): number {
  if (limit === undefined) return 20;
  const value = Number(limit);
  if (!Number.isInteger(value)) throw new MemoryInputError(`--limit: expected a whole number of entries (got '${limit}')`);
  return value;
}

function printEntries(resource: string, entries: MemoryEntry[], options: MemoryListOptions): void {
  if (options.json) {
    console.log(JSON.stringify({ resource, entries }));
    return;
  }
  if (entries.length === 0) {
    console.log(`No memory for ${resource}.`);
    return;
  }
  for (const entry of entries) {
    const tags = entry.tags.length > 0 ? ` [${entry.tags.join(', ')}]` : '';
    const source = entry.source ? ` (from ${entry.source.workflowId})` : '';
    console.log(`${entry.id}  ${entry.createdAt}  ${entry.text}${tags}${source}`);
  }
}
