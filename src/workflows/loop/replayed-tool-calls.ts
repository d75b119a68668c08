import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { ErrorCode } from '../../protocol/errors';
import type { ToolCall } from '../../protocol/messages';
import { canonicalJson, toolCallKey } from '../../protocol/recorded-calls';
import type { ToolResult } from '../../protocol/run-types';
import type { ReplaySource } from '../../protocol/fork-types';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import { activitySummary } from '../rules/activity-summary';
import { workflowErrorResult } from '../rules/tool-result-builders';
import type { LoopState } from './loop-state';

/**
 * Tool calls of a replay-evaluation run (`AgentRunWorkflowInput.replay`): each is answered by an activity
 * that looks the call up in the recorded run's history (same tool, same arguments, the nth call
 * with them gets the nth recorded result), so no tool runs. A call the recording lacks gets an
 * error result saying so, or, with `liveTools`, runs as in any run (approval gate included).
 * Runs without `replay` never come here.
 */

/** Calls made so far by key, per run: numbers each call's occurrence, in call order (deterministic). */
const occurrences = new WeakMap<LoopState, Map<string, number>>();

/** The recorded result of `call`, an error result when it was not recorded, or null to run it live. */
export async function replayRecordedCall(state: LoopState, replay: ReplaySource, call: ToolCall, activityId: string): Promise<ToolResult | null> {
  const seen = occurrences.get(state) ?? new Map<string, number>();
  occurrences.set(state, seen);
  const key = toolCallKey(call.name, call.args);
  const occurrence = (seen.get(key) ?? 0) + 1;
  seen.set(key, occurrence);
  const { replayToolCall } = proxyActivities<AgentActivities>({
    activityId: `${activityId}.recorded`,
    summary: activitySummary(activityId, `recorded result of ${call.name}`),
    startToCloseTimeout: state.timeouts.toolMs,
    retry: infrastructureRetryPolicy(30_000),
  });
  const recorded = await replayToolCall({ source: { workflowId: replay.workflowId, runId: replay.runId }, call, step: state.step, occurrence });
  if (recorded) return recorded;
  if (replay.liveTools) return null;
  return workflowErrorResult(
    call,
    state.step,
    Date.now(),
    // An evaluation from a dataset names the example (the run's own id is its source); runs of a recorded run name it, as before.
    `Error: this is a replay evaluation and ${replay.recordedCalls ? 'the dataset example' : `run ${replay.workflowId}`} made no call ${call.name}(${canonicalJson(call.args)})${occurrence > 1 ? ` a ${ordinal(occurrence)} time` : ''}, so there is no recorded result; the tool was not run.`,
    ErrorCode.toolCallNotRecorded,
  );
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}
