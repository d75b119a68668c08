// `memory list | search | forget`: a resource's memory, read and deleted in the store the workers
// use (AGENT_MEMORY_URL or AGENT_MEMORY_DIR in this environment too).
import { artifactStoreFromEnvironment } from '../../artifacts/artifact-store-from-environment';
import { AgentClient } from '../../client/agent-client';
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
  /** Leave the resource's threads alone (`--memory-only`): no Temporal server needed. */
  memoryOnly?: boolean;
  json?: boolean;
}

/** `memory list RESOURCE`: the newest entries. */
export async function memoryListCommand(resource: string, options: MemoryListOptions, store?: MemoryStore): Promise<void> {
  await withStore(store, async (memory) => printEntries(resource, await memory.recall({ resource, limit: limitOf(options.limit) }), options));
}

/** `memory search RESOURCE QUERY`: entries with any of the query's words, best first (as the recall tool finds them). */
export async function memorySearchCommand(resource: string, query: string, options: MemoryListOptions, store?: MemoryStore): Promise<void> {
  if (!query.trim()) throw new MemoryInputError('query: give words to look for (memory list shows the newest entries)');
  await withStore(store, async (memory) =>
    printEntries(resource, await memory.recall({ resource, text: query, limit: limitOf(options.limit) }), options),
  );
}

/**
 * `memory forget RESOURCE [--id ENTRY]`: forgets the resource: its memory entries and (unless
 * `--memory-only`) its threads, with their artifacts and executions; or one memory entry.
 */
export async function memoryForgetCommand(resource: string, options: MemoryForgetOptions, store?: MemoryStore, agents?: AgentClient): Promise<void> {
  await withStore(store, async (memory) => {
    if (options.id !== undefined) {
      const deleted = await memory.forget({ resource, id: options.id });
      if (options.json) console.log(JSON.stringify({ resource, deleted: deleted.map((entry) => entry.id) }));
      else console.log(deleted.length > 0 ? `Forgot ${options.id} of ${resource}.` : `No memory ${options.id} for ${resource}: nothing deleted.`);
      return;
    }
    const client = options.memoryOnly ? undefined : (agents ?? (await AgentClient.connect(undefined, { artifacts: artifactStoreFromEnvironment() })));
    try {
      const report = await forgetResource(resource, { memory, ...(client ? { threads: client } : {}) });
      if (options.json) return void console.log(JSON.stringify(report));
      console.log(`Forgot ${resource}:`);
      console.log(`  ${report.memoryEntries} memory ${report.memoryEntries === 1 ? 'entry' : 'entries'} deleted`);
      if (report.threads === null) console.log('  threads left alone (--memory-only)');
      else
        console.log(
          `  ${report.threads} thread(s) deleted: ${report.threadArtifacts} artifact(s), ${report.workflowExecutions} workflow execution(s)`,
        );
      for (const what of report.pending) console.log(`  still pending: ${what}`);
    } finally {
      if (client && !agents) await client.close();
    }
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
