// Which memory store a worker (or the `memory` command) uses when it is given none: from the
// environment, like the artifact store.
import path from 'node:path';
import { DEFAULT_DATA_DIR } from '../devserver/dev-server';
import { FolderMemoryStore } from './folder-memory-store';
import type { MemoryStore } from './memory-store';
import { PostgresMemoryStore } from './postgres-memory-store';

/**
 * `AGENT_MEMORY_URL=postgres://user:password@host:5432/database` for a cluster (every worker shares
 * the table; `AGENT_MEMORY_POOL_SIZE` connections per worker, default 4); otherwise a folder on
 * this machine, `AGENT_MEMORY_DIR` or `.temporal-data/memory` (beside the artifacts).
 * @throws Error naming the variable when it is not a postgres:// URL or the pool size not a number.
 * @example
 * // AGENT_MEMORY_URL=postgres://agents:secret@db:5432/agents on every worker
 * const plugin = new AgentPlugin({ tools, memory: memoryStoreFromEnvironment() }); // the plugin's default too
 */
export function memoryStoreFromEnvironment(environment: NodeJS.ProcessEnv = process.env): MemoryStore {
  const url = environment.AGENT_MEMORY_URL;
  if (!url) return new FolderMemoryStore(environment.AGENT_MEMORY_DIR ?? path.join(DEFAULT_DATA_DIR, 'memory'));
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error(
      'AGENT_MEMORY_URL must be a postgres://user:password@host:port/database URL; unset it to keep memory in a folder (AGENT_MEMORY_DIR)',
    );
  }
  const poolSize = environment.AGENT_MEMORY_POOL_SIZE;
  if (poolSize !== undefined && !/^[1-9]\d{0,2}$/.test(poolSize))
    throw new Error(`AGENT_MEMORY_POOL_SIZE must be a whole number of connections, 1 or more (got '${poolSize}')`);
  return new PostgresMemoryStore({ connectionString: url, ...(poolSize !== undefined ? { poolSize: Number(poolSize) } : {}) });
}
