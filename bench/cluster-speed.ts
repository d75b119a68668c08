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
import { STEPS } from './step-overhead';

/**
 * PostgreSQL commit settings compared: `synchronous_commit` `on` waits for each commit's WAL flush
 * (the default, durable), `off` does not (a crash of PostgreSQL or its machine may lose the last
 * ~0.6 s of commits); `commit_delay` (µs) lets a commit wait for others to flush with it (durable).
 */
interface CommitSetting {
  synchronousCommit: 'on' | 'off';
  commitDelayMicros: number;
}

async function timeBatch(agents: AgentClient, runs: number): Promise<number> {
  const started = performance.now();
  const handles = await Promise.all(
    Array.from({ length: runs }, () => agents.startRun({ config: { name: 'cluster-speed', model: 'scripted:steps10', tools: ['noop'], max_steps: STEPS }, task: 'go' })),
  );
  const results = await Promise.all(handles.map((handle) => handle.result()));
  if (results.some((result) => result.steps !== STEPS)) throw new Error(`a run did not take ${STEPS} steps`);
  return performance.now() - started;
}

/** Sets `synchronous_commit` for every new transaction of the server (a reload, no restart). */
async function setCommit(postgres: PostgresClient, setting: CommitSetting): Promise<void> {
  await postgres.query(`ALTER SYSTEM SET synchronous_commit = '${setting.synchronousCommit}'`);
  await postgres.query(`ALTER SYSTEM SET commit_delay = ${setting.commitDelayMicros}`);
  await postgres.query('SELECT pg_reload_conf()');
}

/**
 * `runs` concurrent 10-step runs (scripted model, a no-op tool) per batch, on: the dev server of
 * the bench stack (SQLite, WAL with synchronous=NORMAL), and the cluster of `npm run test:cluster`
 * (the Temporal server 1.29.1 on PostgreSQL, deploy/temporal/postgresql.yaml; NUM_HISTORY_SHARDS, default 4)
 * with `synchronous_commit` on, on with a `commit_delay` of 1 ms, and off. Each worker runs in this process with the same tools and
 * model; the three batches of a round go in a rotating order.
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

    const sides: Array<[string, () => Promise<number>]> = [
      ['dev server', () => timeBatch(stack.agents, runs)],
      ['cluster, synchronous_commit on', async () => (await setCommit(postgres!, { synchronousCommit: 'on', commitDelayMicros: 0 }), timeBatch(clusterAgents, runs))],
      ['cluster, on + commit_delay 1 ms', async () => (await setCommit(postgres!, { synchronousCommit: 'on', commitDelayMicros: 1_000 }), timeBatch(clusterAgents, runs))],
      ['cluster, synchronous_commit off', async () => (await setCommit(postgres!, { synchronousCommit: 'off', commitDelayMicros: 0 }), timeBatch(clusterAgents, runs))],
    ];
    for (const [, measure] of sides) await measure(); // warm-up: bundles, caches, connections
    const samples = new Map<string, number[]>(sides.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      for (let offset = 0; offset < sides.length; offset++) {
        const [name, measure] = sides[(round + offset) % sides.length]!;
        samples.get(name)!.push(await measure());
      }
    }
    const dev = median(samples.get('dev server')!);
    const shards = process.env.NUM_HISTORY_SHARDS ?? '4';
    console.log(`Cluster (PostgreSQL, ${shards} history shards) against the dev server: ${runs} concurrent runs of ${STEPS} steps, median of ${rounds} rotating rounds, load ${os.loadavg()[0]!.toFixed(1)}:`);
    for (const [name, values] of samples) {
      console.log(`  ${name.padEnd(32)} ${(median(values) / 1_000).toFixed(2)} s  ratio ${(median(values) / dev).toFixed(2)}  (rounds ${values.map((value) => (value / 1_000).toFixed(1)).join(', ')} s)`);
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
