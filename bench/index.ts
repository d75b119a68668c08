/**
 * `npm run bench`: figures as ratios against a baseline measured side by side in the same run
 * (machines here are noisy; absolute times are printed for context only).
 *
 * 1. Per-step overhead of an agent run (scripted model + one no-op tool per step) against a bare
 *    workflow that calls the same number of no-op activities.
 * 2. History bytes per step at step 5 and step 50 of one 50-step run.
 * 3. Latency levers: eager workflow start, and eager activity dispatch
 *    (`system.enableActivityEagerExecution`), each on against off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { z } from 'zod';
import { AgentClient } from '../src/client/agent-client';
import { startDevServer, type DevServer } from '../src/devserver/dev-server';
import { ScriptedModel } from '../src/models/scripted-model';
import { defineTool } from '../src/tools/define-tool';
import { createAgentWorker } from '../src/worker/create-worker';
import { defaultModelRegistry } from '../src/worker/default-models';
import type { bareSteps } from '../src/workflows/bare-steps';
import { historyBytesPerStep } from '../test/support/history-bytes';

const STEPS = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

const noop = defineTool({ name: 'noop', description: 'Does nothing.', parameters: z.object({}), execute: () => 'ok' });

function script(steps: number) {
  return {
    replies: [
      ...Array.from({ length: steps - 1 }, () => ({ toolCalls: [{ name: 'noop', args: {} }] })),
      { text: 'done' },
    ],
  };
}

interface Stack {
  server: DevServer;
  connection: NativeConnection;
  worker: Worker;
  running: Promise<void>;
  agents: AgentClient;
  eagerAgents: AgentClient;
  close(): Promise<void>;
}

async function startStack(folder: string, name: string, eagerActivities: boolean): Promise<Stack> {
  const server = await startDevServer({
    port: 0,
    uiPort: null,
    dbFile: path.join(folder, `${name}.db`),
    dynamicConfig: { 'system.enableActivityEagerExecution': eagerActivities },
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = `bench-${randomUUID()}`;
  const scripted = new ScriptedModel({ scripts: { steps10: script(STEPS), steps50: script(50) } });
  const worker = await createAgentWorker({ connection, client, taskQueue, tools: [noop], models: defaultModelRegistry(scripted) });
  const running = worker.run();
  return {
    server,
    connection,
    worker,
    running,
    agents: new AgentClient(client, { taskQueue }),
    eagerAgents: new AgentClient(client, { taskQueue, eagerStart: true }),
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await server.stop();
    },
  };
}

async function timeAgentRun(agents: AgentClient): Promise<number> {
  const started = performance.now();
  const run = await agents.startRun({ config: { name: 'bench', model: 'scripted:steps10', tools: ['noop'], max_steps: STEPS }, task: 'go' });
  const result = await run.result();
  if (result.steps !== STEPS) throw new Error(`expected ${STEPS} steps, got ${result.steps}`);
  return performance.now() - started;
}

async function timeBareRun(agents: AgentClient, activities: number): Promise<number> {
  const started = performance.now();
  await agents.temporal.workflow.execute<typeof bareSteps>('bareSteps', {
    taskQueue: agents.taskQueue,
    workflowId: `bare-${randomUUID()}`,
    args: [activities],
  });
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const folder = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const eagerOn = await startStack(folder, 'eager-on', true);
  const eagerOff = await startStack(folder, 'eager-off', false);
  try {
    // Warm up both stacks (bundle caches, connections, sqlite).
    for (const stack of [eagerOn, eagerOff]) {
      await timeAgentRun(stack.agents);
      await timeBareRun(stack.agents, STEPS * 2);
    }
    const samples = { agent: [] as number[], bare: [] as number[], agentEagerStart: [] as number[], agentNoEagerActivities: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      samples.agent.push(await timeAgentRun(eagerOn.agents));
      samples.bare.push(await timeBareRun(eagerOn.agents, STEPS * 2));
      samples.agentEagerStart.push(await timeAgentRun(eagerOn.eagerAgents));
      samples.agentNoEagerActivities.push(await timeAgentRun(eagerOff.agents));
    }
    const agent = median(samples.agent);
    const bare = median(samples.bare);
    console.log(`Per-step overhead (median of ${ROUNDS} rounds, interleaved; ${STEPS} steps = ${STEPS * 2} activities):`);
    console.log(`  agent run (model step + no-op tool per step): ${ms(agent)} total, ${ms(agent / STEPS)} per step`);
    console.log(`  bare workflow, ${STEPS * 2} no-op activities:          ${ms(bare)} total, ${ms(bare / STEPS)} per step`);
    console.log(`  ratio agent / bare:                            ${(agent / bare).toFixed(2)}`);

    const run = await eagerOn.agents.startRun({ config: { name: 'bench', model: 'scripted:steps50', tools: ['noop'], max_steps: 50 }, task: 'go' });
    await run.result();
    const perStep = historyBytesPerStep((await run.workflow.fetchHistory()).events ?? []);
    const at5 = perStep.get(5) ?? 0;
    const at50 = perStep.get(49) ?? 0;
    console.log('History bytes per step (one 50-step run):');
    console.log(`  step 5: ${at5} B, step 49: ${at50} B (the last tool step), ratio ${(at50 / at5).toFixed(2)}`);

    const eagerStart = median(samples.agentEagerStart);
    const noEagerActivities = median(samples.agentNoEagerActivities);
    console.log('Latency levers (agent run, medians, same rounds):');
    console.log(`  eager workflow start on / off:    ${ms(eagerStart)} / ${ms(agent)}, ratio ${(eagerStart / agent).toFixed(2)}`);
    console.log(`  eager activity dispatch on / off: ${ms(agent)} / ${ms(noEagerActivities)}, ratio ${(agent / noEagerActivities).toFixed(2)}`);
  } finally {
    await eagerOn.close();
    await eagerOff.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
