// Bench part of `workflow-promises`: the CPU a worker process spends replaying an agent run's history against a bare workflow's, per activity (rounds interleaved).
import { Worker } from '@temporalio/worker';

type History = Parameters<typeof Worker.runReplayHistory>[1];

/** One side: a workflow bundle and one history of it, with its activity count. */
export interface ReplaySide {
  code: string;
  history: History;
  activities: number;
}

/** CPU (user + system, every thread of the process) of replaying `copies` copies of the side's history in one replay worker. */
async function replayCpuMs(side: ReplaySide, copies: number): Promise<number> {
  const histories = Array.from({ length: copies }, (_, index) => ({ workflowId: `replay-${index}`, history: side.history }));
  const before = process.cpuUsage();
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code: side.code } }, histories)) {
    if (result.error) throw result.error;
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * Replays each side's history `copies` times per round, `rounds` rounds, the side that goes first
 * alternating; returns the median CPU per activity of each side and of their ratio per round.
 * Replay runs the same workflow code (and the SDK's promise hook) a worker runs live, without the
 * server, the network and the activities, so it isolates what the workflow code costs.
 */
export async function compareReplayCpu(agent: ReplaySide, bare: ReplaySide, copies: number, rounds: number): Promise<{ agentMs: number; bareMs: number; ratios: number[] }> {
  await replayCpuMs(agent, 5); // warm-up: bundle compilation, the source map, V8's first tiers
  await replayCpuMs(bare, 5);
  const agentPerActivity: number[] = [];
  const barePerActivity: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [agent, bare] : [bare, agent];
    for (const side of order) {
      const perActivity = (await replayCpuMs(side, copies)) / (copies * side.activities);
      (side === agent ? agentPerActivity : barePerActivity).push(perActivity);
    }
  }
  const ratios = agentPerActivity.map((value, index) => value / barePerActivity[index]!);
  return { agentMs: median(agentPerActivity), bareMs: median(barePerActivity), ratios };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
