// Variants of the cluster that bench/cluster-speed.ts times in turn: Temporal dynamic config on top of deploy/dynamicconfig/agents.yaml, and PostgreSQL settings.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client as PostgresClient } from 'pg';
import { parse, stringify } from 'yaml';
import { DYNAMIC_CONFIG_FILE } from '../test/cluster/temporal-server';

/** One cluster set-up: a name for the report, dynamic config keys with their values, PostgreSQL settings, the server's environment. */
export interface ClusterVariant {
  name: string;
  dynamicConfig: Record<string, unknown>;
  /** PostgreSQL parameters a configuration reload applies (`ALTER SYSTEM`), e.g. `commit_delay`. */
  postgres: Record<string, string>;
  /** Environment variables of the Temporal server process (e.g. Go's `GOGC`), set on its restart. */
  environment: Record<string, string>;
}

/** Prefixes in BENCH_CLUSTER_VARIANTS of a PostgreSQL parameter and of a server environment variable; any other key is Temporal dynamic config. */
const POSTGRES_PREFIX = 'pg.';
const ENVIRONMENT_PREFIX = 'env.';

/**
 * Parses BENCH_CLUSTER_VARIANTS: variants separated by `;`, each `name: key=value,key=value` (or a
 * bare name for the project's defaults). Keys starting `pg.` are PostgreSQL parameters, `env.` the
 * server's environment variables; the others are dynamic config keys, whose values are read as JSON where they parse (`200`, `true`) and as
 * strings otherwise.
 *
 * @example
 * parseClusterVariants('defaults; partitions1: matching.numTaskqueueReadPartitions=1,matching.numTaskqueueWritePartitions=1; group: pg.commit_delay=200')
 */
export function parseClusterVariants(text: string | undefined): ClusterVariant[] {
  if (!text?.trim()) return [{ name: 'defaults', dynamicConfig: {}, postgres: {}, environment: {} }];
  return text
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const colon = part.indexOf(':');
      const name = (colon < 0 ? part : part.slice(0, colon)).trim();
      const variant: ClusterVariant = { name, dynamicConfig: {}, postgres: {}, environment: {} };
      const settings = colon < 0 ? '' : part.slice(colon + 1);
      for (const setting of settings
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean)) {
        const equals = setting.indexOf('=');
        if (equals < 1) throw new Error(`BENCH_CLUSTER_VARIANTS: '${setting}' in variant '${name}' is not key=value`);
        const key = setting.slice(0, equals).trim();
        const value = setting.slice(equals + 1).trim();
        if (key.startsWith(POSTGRES_PREFIX)) variant.postgres[key.slice(POSTGRES_PREFIX.length)] = value;
        else if (key.startsWith(ENVIRONMENT_PREFIX)) variant.environment[key.slice(ENVIRONMENT_PREFIX.length)] = value;
        else variant.dynamicConfig[key] = parseValue(value);
      }
      return variant;
    });
}

function parseValue(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * Writes the project's dynamic config with the variant's keys set (replacing any the file has),
 * unconstrained, into `folder`, and returns the file's path for DYNAMIC_CONFIG_FILE_PATH.
 */
export function writeDynamicConfig(folder: string, variant: ClusterVariant): string {
  const base = (parse(readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')) ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(variant.dynamicConfig)) base[key] = [{ value }];
  const file = path.join(folder, `dynamicconfig-${variant.name.replace(/[^\w-]/g, '_')}.yaml`);
  writeFileSync(file, stringify(base));
  return file;
}

/** Sets the variant's PostgreSQL parameters (reloadable ones only) and reloads; returns what puts them back. */
export async function applyPostgresSettings(postgres: PostgresClient, variant: ClusterVariant): Promise<() => Promise<void>> {
  const names = Object.keys(variant.postgres);
  for (const name of names) {
    if (!/^\w+$/.test(name)) throw new Error(`BENCH_CLUSTER_VARIANTS: '${name}' is not a PostgreSQL parameter name`);
    // ALTER SYSTEM takes no bind parameters; the value goes in as a quoted literal.
    await postgres.query(`ALTER SYSTEM SET ${name} = '${variant.postgres[name]!.replace(/'/g, "''")}'`);
  }
  await postgres.query('SELECT pg_reload_conf()');
  return async () => {
    for (const name of names) await postgres.query(`ALTER SYSTEM RESET ${name}`);
    await postgres.query('SELECT pg_reload_conf()');
  };
}
