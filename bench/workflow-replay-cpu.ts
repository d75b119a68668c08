// Bench part of `workflow-promises`: the CPU a worker process spends replaying an agent run's history against a bare workflow's, per activity (rounds interleaved).
import { Worker } from '@temporalio/worker';
import { median } from './bench-stack';

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
 * turning each round; returns each side's median CPU per activity and, per round, each side's
 * ratio to the last side (the baseline). Replay runs the same workflow code (and the SDK's promise
 * hook) a worker runs live, without the server, the network and the activities, so it isolates
 * what the workflow code costs.
 */
export async function compareReplayCpu(
  sides: ReplaySide[],
  copies: number,
  rounds: number,
): Promise<Array<{ perActivityMs: number; ratios: number[] }>> {
  for (const side of sides) await replayCpuMs(side, 5); // warm-up: bundle compilation, the source map, V8's first tiers
  const perActivity: number[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < sides.length; index++) {
      const sideIndex = (index + round) % sides.length;
      const side = sides[sideIndex]!;
      perActivity[sideIndex]!.push((await replayCpuMs(side, copies)) / (copies * side.activities));
    }
  }
  const baseline = perActivity[sides.length - 1]!;
  return perActivity.map((values) => ({ perActivityMs: median(values), ratios: values.map((value, round) => value / baseline[round]!) }));
}
