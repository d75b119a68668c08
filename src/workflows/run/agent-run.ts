import { KEPT_TOOL_RESULTS } from '../../protocol/payload-size';
import type { AgentRunWorkflowInput, AgentRunResult } from '../../protocol/run-types';
import { restoreCarriedToolResults } from '../loop/restore-tool-results';
import { withConcurrencySlots } from './concurrency-gate';
import { announceFork, inputFromOrigin } from './fork-start';
import { firstStep } from '../rules/loop-decisions';
import { runPlanner } from '../loop/planner';
import { installRunHandlers } from '../loop/run-handlers';
import { announceRun, finishRun, markFailed, RunStop } from '../loop/run-lifecycle';
import { createRunState, type RunState } from './run-state';
import { continueRun } from './run-continuation';
import { resolveRunInput } from './named-run';
import { takeSteps } from '../loop/take-steps';
import type { StepsEnd } from '../loop/steps-end';
import type { ApprovalGate } from '../loop/approval-gate';
import { runEndHooks, runFailureHooks } from '../loop/run-hooks';
import { resolveRunInstructions } from '../loop/run-instructions';
import { followSkillChanges, loadSkillSources } from '../loop/skill-updates';
import { discoverMcpTools } from '../loop/tool-dispatch';

/**
 * One agent run: (optional planner phase) → per step: apply skill changes and injected messages
 * → model step (with budget checks and compaction) → the requested tool calls in parallel, each
 * its own activity, gated ones after a human decision → results fed back → until a text-only
 * answer or `max_steps`, continuing as new when the history grows long and on a handoff. Every
 * message enters the history once; model steps read the conversation through the `conversation`
 * query. A stop (max steps, context length, budget, invalid output) is a normal result with its
 * reason.
 *
 * The run's state is one `RunState`; each concern is its own module (see docs/architecture.md),
 * and the loop's decisions are the pure functions of `loop-decisions.ts`.
 *
 * @example
 * ```ts
 * // From any Temporal client (the library's AgentClient does this after validating the config):
 * const result = await client.workflow.execute<typeof agentRun>(WireName.agentRunWorkflow, {
 *   taskQueue: DEFAULT_TASK_QUEUE,
 *   workflowId: 'run-1',
 *   args: [{ config: parseAgentConfig(rawConfig), task: 'Summarise the report' }],
 * });
 * console.log(result.stopReason, result.output);
 * ```
 */
export async function agentRun(started: AgentRunWorkflowInput): Promise<AgentRunResult> {
  // A run that names its agent asks the workers for its definition first (recorded; continuations carry it).
  const input = await resolveRunInput(started);
  // A fork (first execution) starts from its origin's conversation, read by an activity first.
  const state = createRunState(input.fork && !input.carried ? await inputFromOrigin(input) : input, continueRun);
  const approvals = installRunHandlers(state);
  announceRun(state);
  if (input.fork && !input.carried) {
    announceFork(state);
    // A fork is a new run: its first model call opens it for the hooks.
    state.hooks.opening = { kind: 'run' };
  }
  followSkillChanges(state);

  // Under a concurrency cap the run waits for a slot first and frees it however it ends.
  return withConcurrencySlots(state, async () => {
    try {
      const end = await runToEnd(state, approvals);
      await restoreCarriedToolResults(state, KEPT_TOOL_RESULTS);
      await runEndHooks(state, end);
      return finishRun(state, end.reason, end.output, end.extra);
    } catch (error) {
      markFailed(state, error);
      await runFailureHooks(state, error);
      throw error;
    }
  });
}

/**
 * The run from its instructions to its last step: a text answer, max_steps, or a `RunStop`
 * (budget, context length; in the planner too) as its end. Failures propagate.
 */
async function runToEnd(state: RunState, approvals: ApprovalGate): Promise<StepsEnd> {
  const { config } = state;
  try {
    if (config.instructions_provider !== null) await resolveRunInstructions(state);
    if (config.skill_sources.length > 0) await loadSkillSources(state, new Map(config.skill_sources.map((source) => [source, 0])));
    if (config.mcp_servers.length > 0) await discoverMcpTools(state);
    if (config.planning_enabled && !state.carried) await runPlanner(state, approvals);
    return await takeSteps(state, approvals, firstStep(state.carried));
  } catch (error) {
    if (error instanceof RunStop) return { reason: error.reason, output: state.threads.lastAssistantText(), extra: { stopDetail: error.detail } };
    throw error;
  }
}
