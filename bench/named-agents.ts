// Bench section `named-agents`: a thread turn and a run started by an agent's name against the same with the inline config, side by side.
import { randomUUID } from 'node:crypto';
import { NativeConnection } from '@temporalio/worker';
import { defineAgent, type AgentDefinition } from '../src/agents/define-agent';
import { AgentClient } from '../src/client/agent-client';
import { WorkerDeployments } from '../src/client/worker-deployments';
import { ScriptedModel } from '../src/models/scripted-model';
import { createAgentWorker } from '../src/worker/create-worker';
import { defaultModelRegistry } from '../src/worker/default-models';
import { threadScripts } from './threads';
import type { ThreadHandle } from '../src/client/thread-handle';
import { median, ms, type BenchStack } from './bench-stack';

/** The config both sides run: one text step a turn (the `threads` section's script). */
const config = { name: 'bench-named', model: 'scripted:chatty', max_steps: 3 };
const WARM_TURNS = 5;

/** The definitions the bench worker offers. */
export function namedBenchAgents(): AgentDefinition[] {
  return [defineAgent({ config })];
}

async function timeTurn(thread: ThreadHandle, text: string): Promise<number> {
  const started = performance.now();
  await (await thread.send(text)).result();
  return performance.now() - started;
}

async function timeRun(agents: AgentClient, named: boolean): Promise<number> {
  const started = performance.now();
  const run = await agents.startRun(named ? { agent: config.name, task: 'go' } : { config, task: 'go' });
  await run.result();
  return performance.now() - started;
}

/**
 * A turn of a thread created by name (it resolves its agent before each turn: one local activity,
 * one marker) against a turn of a thread with the inline config; then whole runs the same way.
 * Interleaved, each side first in every other round, medians compared.
 */
export async function measureNamedAgents(stack: BenchStack, rounds: number): Promise<void> {
  const { agents } = stack;
  const named = agents.thread(`bench-named-${randomUUID().slice(0, 8)}`, { agent: config.name });
  const inline = agents.thread(`bench-inline-${randomUUID().slice(0, 8)}`, { config });
  for (let turn = 1; turn <= WARM_TURNS; turn++) {
    await timeTurn(named, `warm ${turn}`);
    await timeTurn(inline, `warm ${turn}`);
  }
  const byName: number[] = [];
  const byConfig: number[] = [];
  const runsByName: number[] = [];
  const runsByConfig: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const pair = [
      () => timeTurn(named, `message ${round}`).then((time) => byName.push(time)),
      () => timeTurn(inline, `message ${round}`).then((time) => byConfig.push(time)),
    ];
    for (const side of round % 2 === 0 ? pair : pair.reverse()) await side();
    const runs = [
      () => timeRun(agents, true).then((time) => runsByName.push(time)),
      () => timeRun(agents, false).then((time) => runsByConfig.push(time)),
    ];
    for (const side of round % 2 === 0 ? runs : runs.reverse()) await side();
  }
  console.log(`Named agents: a turn and a run started by name against the same with the inline config (median of ${rounds} interleaved rounds):`);
  console.log(
    `  thread turn: by name ${ms(median(byName))}, inline ${ms(median(byConfig))}, ratio ${(median(byName) / median(byConfig)).toFixed(2)}`,
  );
  console.log(
    `  run: by name ${ms(median(runsByName))}, inline ${ms(median(runsByConfig))}, ratio ${(median(runsByName) / median(runsByConfig)).toFixed(2)}`,
  );
  await named.close();
  await inline.close();
  await measureOnDeploymentBuild(stack, rounds);
}

/**
 * The same turn comparison on a versioned worker (a Worker Deployment build): there a named thread
 * asks its workers once per build instead of before every turn.
 */
async function measureOnDeploymentBuild(stack: BenchStack, rounds: number): Promise<void> {
  const connection = await NativeConnection.connect({ address: stack.server.address });
  const taskQueue = `bench-named-versioned-${randomUUID().slice(0, 8)}`;
  const deployment = { deploymentName: taskQueue, buildId: 'b1' };
  const worker = await createAgentWorker({
    connection,
    client: stack.agents.temporal,
    taskQueue,
    tools: [],
    agents: namedBenchAgents(),
    deployment,
    models: defaultModelRegistry(new ScriptedModel({ scripts: threadScripts() })),
    telemetry: false,
  });
  const running = worker.run();
  try {
    const deployments = new WorkerDeployments(stack.agents.temporal);
    for (let tries = 0; ; tries++) {
      try {
        await deployments.setCurrent(deployment.deploymentName, deployment.buildId);
        break;
      } catch (error) {
        if (tries > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const agents = new AgentClient(stack.agents.temporal, { taskQueue, uiUrl: null });
    const named = agents.thread(`bench-named-v-${randomUUID().slice(0, 8)}`, { agent: config.name });
    const inline = agents.thread(`bench-inline-v-${randomUUID().slice(0, 8)}`, { config });
    for (let turn = 1; turn <= WARM_TURNS; turn++) {
      await timeTurn(named, `warm ${turn}`);
      await timeTurn(inline, `warm ${turn}`);
    }
    const byName: number[] = [];
    const byConfig: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const pair = [
        () => timeTurn(named, `message ${round}`).then((time) => byName.push(time)),
        () => timeTurn(inline, `message ${round}`).then((time) => byConfig.push(time)),
      ];
      for (const side of round % 2 === 0 ? pair : pair.reverse()) await side();
    }
    console.log(
      `  thread turn on a Worker Deployment build: by name ${ms(median(byName))}, inline ${ms(median(byConfig))}, ratio ${(median(byName) / median(byConfig)).toFixed(2)}`,
    );
    await named.close();
    await inline.close();
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}
