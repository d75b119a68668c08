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

/** Both sides of one round, timed, each going first in every other round. */
async function timePair(round: number, sides: [() => Promise<number>, () => Promise<number>], into: [number[], number[]]): Promise<void> {
  const order = round % 2 === 0 ? [0, 1] : [1, 0];
  for (const index of order) into[index]!.push(await sides[index]!());
}

/** Two threads of the same agent, by name and inline, warmed up: the turn comparison's pair. */
async function threadPair(agents: AgentClient, prefix: string): Promise<[ThreadHandle, ThreadHandle]> {
  const named = agents.thread(`${prefix}-named-${randomUUID().slice(0, 8)}`, { agent: config.name });
  const inline = agents.thread(`${prefix}-inline-${randomUUID().slice(0, 8)}`, { config });
  for (let turn = 1; turn <= WARM_TURNS; turn++) {
    await timeTurn(named, `warm ${turn}`);
    await timeTurn(inline, `warm ${turn}`);
  }
  return [named, inline];
}

function ratioLine(what: string, byName: number[], inline: number[]): string {
  return `  ${what}: by name ${ms(median(byName))}, inline ${ms(median(inline))}, ratio ${(median(byName) / median(inline)).toFixed(2)}`;
}

/**
 * A turn of a thread created by name (it resolves its agent before a turn only when the turn runs
 * on workers of another build) against a turn of a thread with the inline config; then whole runs
 * the same way (one resolution at start). Interleaved, each side first in every other round,
 * medians compared.
 */
export async function measureNamedAgents(stack: BenchStack, rounds: number): Promise<void> {
  const { agents } = stack;
  const [named, inline] = await threadPair(agents, 'bench');
  const turns: [number[], number[]] = [[], []];
  const runs: [number[], number[]] = [[], []];
  for (let round = 0; round < rounds; round++) {
    await timePair(round, [() => timeTurn(named, `message ${round}`), () => timeTurn(inline, `message ${round}`)], turns);
    await timePair(round, [() => timeRun(agents, true), () => timeRun(agents, false)], runs);
  }
  console.log(`Named agents: a turn and a run started by name against the same with the inline config (median of ${rounds} interleaved rounds):`);
  console.log(ratioLine('thread turn', ...turns));
  console.log(ratioLine('run', ...runs));
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
    const [named, inline] = await threadPair(agents, 'bench-v');
    const turns: [number[], number[]] = [[], []];
    for (let round = 0; round < rounds; round++) {
      await timePair(round, [() => timeTurn(named, `message ${round}`), () => timeTurn(inline, `message ${round}`)], turns);
    }
    console.log(ratioLine('thread turn on a Worker Deployment build', ...turns));
    await named.close();
    await inline.close();
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}
