// A continued run's newest tool results come by reference; the run reads them back only when a result needs them.
import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { KEPT_TOOL_RESULTS } from '../../protocol/payload-size';
import { infrastructureRetryPolicy } from '../rules/infrastructure-retry-policy';
import type { LoopState } from './loop-state';

/**
 * Puts the tool results the previous execution stored (`CarriedState.toolResultsRef`) back in
 * front of this execution's own, when the result about to be built needs more than this execution
 * has: `wanted` of them (the newest KEPT_TOOL_RESULTS for a run's result, a turn's own for a thread
 * turn). One `readCarriedToolResults` activity, at most once per execution; nothing when the run
 * carried no results or needs none.
 */
export async function restoreCarriedToolResults(state: LoopState, wanted: number): Promise<void> {
  const stored = state.carriedToolResults;
  if (!stored || state.toolResults.length >= Math.min(wanted, KEPT_TOOL_RESULTS)) return;
  const { readCarriedToolResults } = proxyActivities<AgentActivities>({
    activityId: `step-${state.step}.read-carried-tool-results`,
    summary: `step ${state.step}: read the ${stored.count} tool results the run carried by reference`,
    startToCloseTimeout: state.timeouts.modelStepMs,
    retry: infrastructureRetryPolicy(30_000),
  });
  const earlier = await readCarriedToolResults({ stored });
  state.carriedToolResults = null;
  state.toolResults.unshift(...earlier.slice(-(KEPT_TOOL_RESULTS - state.toolResults.length)));
}
