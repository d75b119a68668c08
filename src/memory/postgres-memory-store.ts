// The cluster memory store: one PostgreSQL table every worker shares, searched with PostgreSQL's
// full-text search. Loads the optional `pg` driver when first used.
import type { Pool, QueryResultRow } from 'pg';
import {
  assertResourceId,
  isMemoryEntryId,
  memoryEntryId,
  MemoryInputError,
  MemoryUnavailableError,
  validForgetRequest,
  validRecallQuery,
  validRememberRequest,
  type ForgetRequest,
  type MemoryEntry,
  type MemoryStore,
  type RecallQuery,
  type RememberRequest,
} from './memory-store';
import { memoryTableStatements, type MemoryRow, entryColumns, entryOf } from './postgres-memory-schema';

/** Where the PostgreSQL memory lives, and how the store talks to it. */
export interface PostgresMemoryStoreOptions {
  /** `postgres://user:password@host:5432/database` (the worker's AGENT_MEMORY_URL). */
  connectionString: string;
  /** The table (created on first use). Default: `agent_memory`. */
  table?: string;
  /**
   * Connections the worker keeps open at most. Default: 4 — memory calls are short, and a cluster
   * of N workers then holds at most 4·N of the server's `max_connections`.
   */
  poolSize?: number;
  /** PostgreSQL's text search configuration for recall (stemming, stop words). Default: `english`. */
  textSearchConfig?: string;
  /** How long to wait for a connection before the store counts as down, in ms. Default: 5,000. */
  connectionTimeoutMs?: number;
  /** The longest a memory statement may run, in ms. Default: 10,000. */
  statementTimeoutMs?: number;
}

const DEFAULT_POOL_SIZE = 4;

/**
 * Memory in a PostgreSQL table, for clusters: every worker reads what any of them stored. The table
 * and its indexes are created on first use (`CREATE … IF NOT EXISTS` in one transaction under an
 * advisory lock, so workers starting together do not collide). `remember` inserts with
 * `ON CONFLICT DO NOTHING` on an id derived from the idempotency key: a retried call stores one
 * row. `recall` uses full-text search (`websearch_to_tsquery`, any of the words, ranked by
 * `ts_rank`, then newest). Needs the optional peer dependency `pg`.
 * @example
 * import { AgentPlugin, PostgresMemoryStore } from 'durable-agents/worker';
 *
 * const memory = new PostgresMemoryStore({ connectionString: 'postgres://agents:secret@db:5432/agents' });
 * const plugin = new AgentPlugin({ tools, memory }); // the worker refuses to start if it is unreachable
 */
export class PostgresMemoryStore implements MemoryStore {
  private pool: Pool | undefined;
  private prepared: Promise<void> | undefined;
  private readonly table: string;
  private readonly textSearchConfig: string;

  constructor(private readonly options: PostgresMemoryStoreOptions) {
    this.table = options.table ?? 'agent_memory';
    if (!/^[a-z_][a-z0-9_]{0,40}$/.test(this.table))
      throw new MemoryInputError(`table: '${this.table}' must be 1-41 lowercase letters, digits or _, starting with a letter or _`);
    this.textSearchConfig = options.textSearchConfig ?? 'english';
    if (!/^[a-z_]+$/.test(this.textSearchConfig))
      throw new MemoryInputError(`textSearchConfig: '${this.textSearchConfig}' is not a text search configuration name (such as english or simple)`);
  }

  /** Connects and creates the table if it is missing. @throws MemoryUnavailableError naming the server (never the password). */
  open(): Promise<void> {
    this.prepared ??= this.createTable().catch((error: unknown) => {
      this.prepared = undefined; // the next call tries again: the server may be back
      throw this.unavailable(error);
    });
    return this.prepared;
  }

  async remember(request: RememberRequest): Promise<{ entry: MemoryEntry; created: boolean }> {
    const valid = validRememberRequest(request);
    const id = memoryEntryId(valid.resource, valid.idempotencyKey);
    const inserted = await this.query<MemoryRow>(
      `INSERT INTO ${this.table} (id, resource, text, tags, metadata, source_workflow_id, source_call_id, search)
       VALUES ($1, $2, $3, $4::text[], $5::jsonb, $6, $7, to_tsvector($8::regconfig, $3 || ' ' || array_to_string($4::text[], ' ')))
       ON CONFLICT (id) DO NOTHING
       RETURNING ${entryColumns}`,
      [
        id,
        valid.resource,
        valid.text,
        valid.tags,
        JSON.stringify(valid.metadata),
        valid.source?.workflowId ?? null,
        valid.source?.callId ?? null,
        this.textSearchConfig,
      ],
    );
    if (inserted[0]) return { entry: entryOf(inserted[0]), created: true };
    const existing = await this.query<MemoryRow>(`SELECT ${entryColumns} FROM ${this.table} WHERE id = $1`, [id]);
    // Inserted by an earlier attempt, then deleted before this one: the fact was forgotten on purpose.
    if (!existing[0]) throw new MemoryInputError(`The entry this call stored (${id}) was deleted since; remember it again in a new call`);
    return { entry: entryOf(existing[0]), created: false };
  }

  async recall(query: RecallQuery): Promise<MemoryEntry[]> {
    const { resource, text, limit } = validRecallQuery(query);
    if (!text) {
      return (
        await this.query<MemoryRow>(`SELECT ${entryColumns} FROM ${this.table} WHERE resource = $1 ORDER BY created_at DESC, id LIMIT $2`, [
          resource,
          limit,
        ])
      ).map(entryOf);
    }
    // websearch_to_tsquery reads the words as the user wrote them (quotes for a phrase); joining
    // them with OR instead of AND finds entries that contain any of them, ranked by how well.
    const rows = await this.query<MemoryRow>(
      `SELECT ${entryColumns}, ts_rank(search, query) AS rank
       FROM ${this.table}, (SELECT replace(websearch_to_tsquery($3::regconfig, $2)::text, ' & ', ' | ')::tsquery AS query) AS words
       WHERE resource = $1 AND search @@ query
       ORDER BY rank DESC, created_at DESC, id LIMIT $4`,
      [resource, text, this.textSearchConfig, limit],
    );
    return rows.map(entryOf);
  }

  async forget(request: ForgetRequest): Promise<MemoryEntry[]> {
    const valid = validForgetRequest(request);
    if ('id' in valid) {
      if (!isMemoryEntryId(valid.id)) return [];
      return (
        await this.query<MemoryRow>(`DELETE FROM ${this.table} WHERE resource = $1 AND id = $2 RETURNING ${entryColumns}`, [valid.resource, valid.id])
      ).map(entryOf);
    }
    const rows = await this.query<MemoryRow>(
      `DELETE FROM ${this.table} WHERE resource = $1 AND strpos(lower(text), lower($2)) > 0 RETURNING ${entryColumns}`,
      [valid.resource, valid.matching],
    );
    return rows.map(entryOf);
  }

  async forgetResource(resource: string): Promise<number> {
    assertResourceId(resource);
    const rows = await this.query<{ id: string }>(`DELETE FROM ${this.table} WHERE resource = $1 RETURNING id`, [resource]);
    return rows.length;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.prepared = undefined;
    await pool?.end();
  }

  private async createTable(): Promise<void> {
    const client = await this.connection().connect();
    try {
      await client.query('BEGIN');
      // Two workers starting at once would both find no table and race on the catalog: one waits here.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`durable-agents memory table ${this.table}`]);
      for (const statement of memoryTableStatements(this.table)) await client.query(statement);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async query<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
    await this.open();
    try {
      return (await this.connection().query<Row>(text, values)).rows;
    } catch (error) {
      throw isConnectionFailure(error) ? this.unavailable(error) : error;
    }
  }

  private connection(): Pool {
    if (this.pool) return this.pool;
    const { Pool: PoolClass } = loadPg();
    const { connectionString, poolSize, connectionTimeoutMs, statementTimeoutMs } = this.options;
    this.pool = new PoolClass({
      connectionString,
      max: poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: connectionTimeoutMs ?? 5_000,
      statement_timeout: statementTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'durable-agents memory',
      // Idle connections do not keep a process alive (a CLI command, a test) once its work is done.
      allowExitOnIdle: true,
    });
    // An idle connection the server closed (a restart) is reported here; unhandled, it would end
    // the worker process. The next query opens a new connection, or reports the store down.
    this.pool.on('error', () => undefined);
    return this.pool;
  }

  private unavailable(error: unknown): Error {
    if (error instanceof MemoryUnavailableError || error instanceof MemoryInputError) return error;
    const message = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || error.name : String(error);
    return new MemoryUnavailableError(`The memory store (${describeServer(this.options.connectionString)}) cannot be reached: ${message}`, {
      cause: error,
    });
  }
}

/** Connection refused or lost, timeouts, the server shutting down, bad credentials, a missing database: the store is down, not the query wrong. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  const severity = (error as { severity?: unknown }).severity;
  if (severity === undefined) return true; // not an answer of the server: the network, the pool
  return typeof code === 'string' && /^(08|28|3D|53|57P)/.test(code);
}

/** `PostgreSQL at host:port/database`, without the user or the password. */
function describeServer(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `PostgreSQL at ${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** The `pg` driver, loaded when a PostgreSQL store is first used (an optional peer dependency). */
function loadPg(): typeof import('pg') {
  try {
    return require('pg') as typeof import('pg');
  } catch {
    throw new MemoryUnavailableError('PostgresMemoryStore (AGENT_MEMORY_URL) needs the package pg in your project: npm install pg');
  }
}
