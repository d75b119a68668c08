// The PostgreSQL memory table: its definition, the columns an entry is read from, and a row read
// back as a MemoryEntry.
import type { MemoryEntry } from './memory-store';

/**
 * The statements that create the table and its indexes when they are missing (run in one
 * transaction by PostgresMemoryStore). `search` holds the text and tags as a tsvector, computed on
 * insert with the store's text search configuration; the GIN index serves recall, the
 * (resource, created_at) index the newest-first listing and `forgetResource`.
 */
export function memoryTableStatements(table: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
      id text PRIMARY KEY,
      resource text NOT NULL,
      text text NOT NULL,
      tags text[] NOT NULL DEFAULT '{}',
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      source_workflow_id text,
      source_call_id text,
      search tsvector NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS ${table}_resource_created ON ${table} (resource, created_at DESC)`,
    `CREATE INDEX IF NOT EXISTS ${table}_search ON ${table} USING gin (search)`,
  ];
}

/** The columns a MemoryEntry is read from. */
export const entryColumns = 'id, resource, text, tags, metadata, created_at, source_workflow_id, source_call_id';

/** A row of the memory table as `pg` returns it (text[] as an array, jsonb parsed, timestamptz as a Date). */
export interface MemoryRow {
  id: string;
  resource: string;
  text: string;
  tags: string[];
  metadata: Record<string, unknown>;
  created_at: Date;
  source_workflow_id: string | null;
  source_call_id: string | null;
}

export function entryOf(row: MemoryRow): MemoryEntry {
  return {
    id: row.id,
    resource: row.resource,
    text: row.text,
    tags: row.tags,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
    source:
      row.source_workflow_id !== null && row.source_call_id !== null ? { workflowId: row.source_workflow_id, callId: row.source_call_id } : null,
  };
}
