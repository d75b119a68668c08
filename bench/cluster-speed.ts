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
import { STEPS } from './step-overhead';

/**
 * PostgreSQL commit settings compared: `synchronous_commit` `on` waits for each commit's WAL flush
 * (the default, durable), `off` does not (a crash of PostgreSQL or its machine may lose the last
 * ~0.6 s of commits).
 */
type SynchronousCommit = 'on' | 'off';

/** Temporal's two PostgreSQL drivers: `postgres12` (lib/pq) and `postgres12_pgx` (pgx, which caches prepared statements). */
const PLUGINS = (process.env.BENCH_CLUSTER_PLUGINS ?? 'postgres12,postgres12_pgx').split(',').filter(Boolean);

/** One batch: its wall time and the CPU each server-side process used meanwhile. */
interface Batch {
  wallMs: number;
  /** The dev server's process, or the Temporal server's. */
  serverCpuMs: number;
  /** PostgreSQL's processes (0 for the dev server, whose SQLite is in its process). */
  databaseCpuMs: number;
}

async function timeBatch(agents: AgentClient, runs: number, cpu: () => { server: number; database: number }): Promise<Batch> {
  const before = cpu();
  const started = performance.now();
  const handles = await Promise.all(
    Array.from({ length: runs }, () => agents.startRun({ config: { name: 'cluster-speed', model: 'scripted:steps10', tools: ['noop'], max_steps: STEPS }, task: 'go' })),
  );
  const results = await Promise.all(handles.map((handle) => handle.result()));
  if (results.some((result) => result.steps !== STEPS)) throw new Error(`a run did not take ${STEPS} steps`);
  const wallMs = performance.now() - started;
  const after = cpu();
  return { wallMs, serverCpuMs: after.server - before.server, databaseCpuMs: after.database - before.database };
}

/** Sets `synchronous_commit` for every new transaction of the server (a reload, no restart). */
async function setCommit(postgres: PostgresClient, setting: SynchronousCommit): Promise<void> {
  await postgres.query(`ALTER SYSTEM SET synchronous_commit = '${setting}'`);
  await postgres.query('SELECT pg_reload_conf()');
}

/**
 * `runs` concurrent 10-step runs (scripted model, a no-op tool) per batch, on: the dev server of
 * the bench stack (SQLite, WAL with synchronous=NORMAL), and the cluster of `npm run test:cluster`
 * (the Temporal server 1.29.1 on PostgreSQL, deploy/temporal/postgresql.yaml; NUM_HISTORY_SHARDS,
 * default 4) with `synchronous_commit` on and off, once per SQL driver (BENCH_CLUSTER_PLUGINS; the
 * server restarts between drivers). Each worker runs in this process with the same tools and model;
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
    const shards = process.env.NUM_HISTORY_SHARDS ?? '4';
    for (const plugin of PLUGINS) {
      await cluster.server!.restartWith({ SQL_PLUGIN: plugin });
      const sides: Array<[string, () => Promise<Batch>]> = [
        ['dev server', () => timeBatch(stack.agents, runs, devCpu)],
        ['cluster, synchronous_commit on', async () => (await setCommit(postgres!, 'on'), timeBatch(clusterAgents, runs, clusterCpu))],
        ['cluster, synchronous_commit off', async () => (await setCommit(postgres!, 'off'), timeBatch(clusterAgents, runs, clusterCpu))],
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
      console.log(`Cluster (PostgreSQL, ${shards} history shards, driver ${plugin}) against the dev server: ${runs} concurrent runs of ${STEPS} steps, median of ${rounds} rotating rounds, load ${os.loadavg()[0]!.toFixed(1)}:`);
      for (const [name, batches] of samples) {
        const wall = median(batches.map((batch) => batch.wallMs));
        const serverCpu = median(batches.map((batch) => batch.serverCpuMs)) / runs;
        const databaseCpu = median(batches.map((batch) => batch.databaseCpuMs)) / runs;
        console.log(
          `  ${name.padEnd(32)} ${(wall / 1_000).toFixed(2)} s  ratio ${(wall / dev).toFixed(2)}  CPU per run: server ${serverCpu.toFixed(1)} ms, PostgreSQL ${databaseCpu.toFixed(1)} ms  (rounds ${batches.map((batch) => (batch.wallMs / 1_000).toFixed(1)).join(', ')} s)`,
        );
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
