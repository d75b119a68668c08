import { patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { AgentCostUsdAttribute, AgentStatusAttribute } from '../../src/protocol/search-attributes';
import type { BaselineActivities } from './baseline-activities';

/** Bytes of what an agent run of the throughput bench carries (its recorded history, rounded). */
export const AGENT_LIKE_SIZES = {
  /** The start input: the whole config and the task. */
  input: 2_000,
  /** A step's activity input (a model step's is ~350 bytes, a tool call's ~260). */
  activityInput: 300,
  /** A step's activity result (a model reply ~200 bytes, a tool result ~290). */
  activityResult: 250,
  /** The run's result: output, usage and every tool result. */
  result: 2_000,
};

/**
 * A bare workflow with the events and payload sizes of an agent run but none of its code: the
 * same `steps` activities one after another, two patch markers before the first and one after the
 * last (each with the `TemporalChangeVersion` upsert Core adds), a status upsert at the end, and
 * payloads of `AGENT_LIKE_SIZES`. The throughput bench runs it as a third side
 * (BENCH_THROUGHPUT_LIKE_AGENT=1) to tell the agent's events and bytes apart from its code.
 */
export async function bareStepsLikeAnAgent(steps: number, input: string, parts: LikeAnAgentParts = { events: true, bytes: true }): Promise<string> {
  const { echo } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '1m' });
  const sizes = parts.bytes ? AGENT_LIKE_SIZES : { activityInput: 1, activityResult: 1, result: 1 };
  // The ids are the bench's own: a patch's cost is its marker and upsert, not its name.
  if (parts.events) patched('bench-like-agent-1');
  if (parts.events && !parts.oneMarker) patched('bench-like-agent-2');
  let carried = input.slice(0, sizes.activityInput);
  for (let step = 1; step <= steps; step++) carried = await echo(carried.padEnd(sizes.activityInput, 'i'), sizes.activityResult);
  if (parts.events) {
    if (!parts.oneMarker) patched('bench-like-agent-3');
    upsertSearchAttributes([
      { key: AgentStatusAttribute, value: 'completed' },
      { key: AgentCostUsdAttribute, value: 0 },
    ]);
  }
  return carried.padEnd(sizes.result, 'r');
}

/** Which of an agent run's additions `bareStepsLikeAnAgent` makes: its extra events (patch markers, upserts), its payload sizes. */
export interface LikeAnAgentParts {
  events: boolean;
  bytes: boolean;
  /** One patch marker (and its upsert) in place of three: what a marker per release instead of per change would record. */
  oneMarker?: boolean;
}
