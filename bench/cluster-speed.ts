// Bench section `cluster-speed` (opt-in): the same concurrent runs on a Temporal cluster on PostgreSQL and on the dev server, interleaved, with PostgreSQL's commit setting both ways.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { Client as PostgresClient } from 'pg';
import { z } from 'zod';
import { AgentClient } from '../src/client/agent-client';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { ScriptedModel } from '../src/models/scripted-model';
import { defineTool } from '../src/tools/define-tool';
import { createAgentWorker } from '../src/worker/create-worker';
import { defaultModelRegistry } from '../src/worker/default-models';
import { Cluster, NAMESPACE } from '../test/cluster/cluster';
import { median, noopScript, type BenchStack } from './bench-stack';
import { processCpuMsOf, processTreeCpuMsOf } from './process-cpu';
import { describePerRun, readPersistenceRequests, requestsBetween, type PersistenceRequests } from './persistence-requests';
import { applyPostgresSettings, parseClusterVariants, writeDynamicConfig } from './cluster-variants';
import { STEPS } from './step-overhead';

/**
 * PostgreSQL commit settings compared: `synchronous_commit` `on` waits for each commit's WAL flush
 * (the default, durable), `off` does not (a crash of PostgreSQL or its machine may lose the last
 * ~0.6 s of commits).
 */
type SynchronousCommit = 'on' | 'off';

/** Temporal's two PostgreSQL drivers: `postgres12` (lib/pq) and `postgres12_pgx` (pgx, which caches prepared statements). */
const PLUGINS = (process.env.BENCH_CLUSTER_PLUGINS ?? 'postgres12,postgres12_pgx').split(',').filter(Boolean);

/** The `synchronous_commit` settings timed on each cluster set-up (BENCH_CLUSTER_COMMITS, default both). */
const COMMITS = (process.env.BENCH_CLUSTER_COMMITS ?? 'on,off')
  .split(',')
  .filter((setting): setting is SynchronousCommit => setting === 'on' || setting === 'off');

/** Cluster set-ups timed in turn, each in its own block of rounds (BENCH_CLUSTER_VARIANTS, see bench/cluster-variants.ts). */
const VARIANTS = parseClusterVariants(process.env.BENCH_CLUSTER_VARIANTS);

/** One batch: its wall time and the CPU each server-side process used meanwhile. */
interface Batch {
  wallMs: number;
  /** The dev server's process, or the Temporal server's. */
  serverCpuMs: number;
  /** PostgreSQL's processes (0 for the dev server, whose SQLite is in its process). */
  databaseCpuMs: number;
  /** The cluster's persistence requests meanwhile, when its metrics are on (PROMETHEUS_ENDPOINT). */
  requests?: PersistenceRequests;
}

/**
 * The Temporal server's Prometheus listener: set PROMETHEUS_ENDPOINT (host:port) for the bench and
 * the cluster serves its metrics there, and the report adds persistence requests per run (the
 * metrics cost the server CPU: leave it unset for the times).
 */
const METRICS_ENDPOINT = process.env.PROMETHEUS_ENDPOINT;

async function timeBatch(
  agents: AgentClient,
  runs: number,
  cpu: () => { server: number; database: number },
  readRequests?: () => Promise<PersistenceRequests>,
): Promise<Batch> {
  const requestsBefore = await readRequests?.();
  const before = cpu();
  const started = performance.now();
  const handles = await Promise.all(
    Array.from({ length: runs }, () =>
      agents.startRun({ config: { name: 'cluster-speed', model: 'scripted:steps10', tools: ['noop'], max_steps: STEPS }, task: 'go' }),
    ),
  );
  const results = await Promise.all(handles.map((handle) => handle.result()));
  if (results.some((result) => result.steps !== STEPS)) throw new Error(`a run did not take ${STEPS} steps`);
  const wallMs = performance.now() - started;
  const after = cpu();
  const requests = requestsBefore && readRequests ? requestsBetween(requestsBefore, await readRequests()) : undefined;
  return { wallMs, serverCpuMs: after.server - before.server, databaseCpuMs: after.database - before.database, requests };
}

/** Sets `synchronous_commit` for every new transaction of the server (a reload, no restart). */
async function setCommit(postgres: PostgresClient, setting: SynchronousCommit): Promise<void> {
  await postgres.query(`ALTER SYSTEM SET synchronous_commit = '${setting}'`);
  await postgres.query('SELECT pg_reload_conf()');
}

/**
 * `runs` concurrent 10-step runs (scripted model, a no-op tool) per batch, on: the dev server of
 * the bench stack (SQLite, WAL with synchronous=NORMAL), and the cluster of `npm run test:cluster`
 * (the Temporal server 1.32.2 on PostgreSQL, deploy/temporal/postgresql.yaml; NUM_HISTORY_SHARDS,
 * default 4) with `synchronous_commit` on and off (BENCH_CLUSTER_COMMITS), once per cluster variant
 * (BENCH_CLUSTER_VARIANTS: dynamic config, PostgreSQL settings, the server's environment) and SQL
 * driver (BENCH_CLUSTER_PLUGINS); the server restarts between those blocks, and each block has
 * dev-server batches of its own to compare with. Each worker runs in this process with the same tools and model;
 * the batches of a round go in a rotating order. Besides the time, each batch's server-side CPU
 * per run: what the comparison costs on a machine whose cores every process shares.
 */
export async function measureClusterSpeed(stack: BenchStack, rounds: number, runs: number): Promise<void> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'bench-cluster-'));
  const cluster = new Cluster();
  let postgres: PostgresClient | undefined;
  let clientConnection: Connection | undefined;
  let workerConnection: NativeConnection | undefined;
  let stopWorker: (() => Promise<void>) | undefined;
  try {
    await cluster.start(folder);
    postgres = new PostgresClient({ connectionString: cluster.postgres!.url });
    await postgres.connect();
    clientConnection = await Connection.connect({ address: cluster.address });
    workerConnection = await NativeConnection.connect({ address: cluster.address });
    const client = new Client({ connection: clientConnection, namespace: NAMESPACE });
    const taskQueue = `cluster-speed-${randomUUID()}`;
    const noop = defineTool({ name: 'noop', description: 'Does nothing.', parameters: z.object({}), execute: () => 'ok' });
    const worker = await createAgentWorker({
      connection: workerConnection,
      client,
      namespace: NAMESPACE,
      taskQueue,
      tools: [noop],
      telemetry: false,
      artifacts: new FolderArtifactStore(path.join(folder, 'artifacts')),
      models: defaultModelRegistry(new ScriptedModel({ scripts: { steps10: noopScript(STEPS) } })),
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
    };
    const clusterAgents = new AgentClient(client, { taskQueue, namespace: NAMESPACE });

    const devCpu = () => ({ server: processCpuMsOf(stack.server.pid) ?? 0, database: 0 });
    const clusterCpu = () => ({ server: processCpuMsOf(cluster.server!.pid ?? -1) ?? 0, database: processTreeCpuMsOf(cluster.postgres!.pid) ?? 0 });
    const clusterRequests = METRICS_ENDPOINT ? () => readPersistenceRequests(METRICS_ENDPOINT) : undefined;
    const shards = process.env.NUM_HISTORY_SHARDS ?? '4';
    for (const variant of VARIANTS)
      for (const plugin of PLUGINS) {
        const dynamicConfigFile = writeDynamicConfig(folder, variant);
        // A restart keeps the environment of the one before: what another variant set is emptied (unset, for Go and the config template).
        const environment = Object.fromEntries(
          VARIANTS.flatMap((other) => Object.keys(other.environment)).map((name) => [name, variant.environment[name] ?? '']),
        );
        await cluster.server!.restartWith({ ...environment, SQL_PLUGIN: plugin, DYNAMIC_CONFIG_FILE_PATH: dynamicConfigFile });
        const restorePostgres = await applyPostgresSettings(postgres!, variant);
        const sides: Array<[string, () => Promise<Batch>]> = [
          ['dev server', () => timeBatch(stack.agents, runs, devCpu)],
          ...COMMITS.map((setting): [string, () => Promise<Batch>] => [
            `cluster, synchronous_commit ${setting}`,
            async () => (await setCommit(postgres!, setting), timeBatch(clusterAgents, runs, clusterCpu, clusterRequests)),
          ]),
        ];
        for (const [, measure] of sides) await measure(); // warm-up: bundles, caches, connections, the restarted server
        const samples = new Map<string, Batch[]>(sides.map(([name]) => [name, []]));
        for (let round = 0; round < rounds; round++) {
          for (let offset = 0; offset < sides.length; offset++) {
            const [name, measure] = sides[(round + offset) % sides.length]!;
            samples.get(name)!.push(await measure());
          }
        }
        const dev = median(samples.get('dev server')!.map((batch) => batch.wallMs));
        await restorePostgres();
        const settings = Object.entries({ ...variant.dynamicConfig, ...variant.postgres, ...variant.environment }).map(
          ([key, value]) => `${key}=${String(value)}`,
        );
        console.log(
          `Cluster (PostgreSQL, ${shards} history shards, driver ${plugin}, variant ${variant.name}${settings.length ? ` [${settings.join(', ')}]` : ''}) against the dev server: ${runs} concurrent runs of ${STEPS} steps, median of ${rounds} rotating rounds, load ${os.loadavg()[0]!.toFixed(1)}:`,
        );
        for (const [name, batches] of samples) {
          const wall = median(batches.map((batch) => batch.wallMs));
          const serverCpu = median(batches.map((batch) => batch.serverCpuMs)) / runs;
          const databaseCpu = median(batches.map((batch) => batch.databaseCpuMs)) / runs;
          console.log(
            `  ${name.padEnd(32)} ${(wall / 1_000).toFixed(2)} s  ratio ${(wall / dev).toFixed(2)}  CPU per run: server ${serverCpu.toFixed(1)} ms, PostgreSQL ${databaseCpu.toFixed(1)} ms  (rounds ${batches.map((batch) => (batch.wallMs / 1_000).toFixed(1)).join(', ')} s)`,
          );
          const requests = batches.flatMap((batch) => (batch.requests ? [batch.requests] : []));
          if (requests.length > 0) {
            const summed: PersistenceRequests = new Map();
            for (const batch of requests) for (const [key, count] of batch) summed.set(key, (summed.get(key) ?? 0) + count);
            console.log(`    persistence requests per run: ${describePerRun(summed, runs * requests.length)}`);
          }
        }
      }
  } finally {
    await stopWorker?.();
    await workerConnection?.close();
    await clientConnection?.close();
    await postgres?.end();
    await cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
