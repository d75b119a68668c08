// A run's instructions: static ones with their template variables filled, or an instructions provider's answer, recorded.
import { isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { AgentConfig } from '../../config/agent-config';
import { filledInstructions } from '../rules/filled-instructions';
import { retriedCall } from './activity-retries';
import { activitySummary } from '../rules/activity-summary';
import { describeFailure } from '../rules/describe-failure';
import { taskOf, type LoopState } from './loop-state';
import { systemPromptOf } from './skill-updates';

/** How much of the task (or turn message) an instructions provider is told. */
const PROVIDER_TASK_CHARACTERS = 8_000;

/** Whether the instructions must be carried to the next execution (a provider's, or filled ones, which a later fill could change). */
export function instructionsToCarry(state: LoopState): string | undefined {
  return state.config.instructions_provider !== null || state.instructions !== state.config.instructions ? state.instructions : undefined;
}

/**
 * The config sub-agents are made from: the parent's, with the instructions the parent resolved as
 * static ones (a child does not ask the provider again, and keeps its job's system prompt).
 */
export function configForChildren(state: LoopState): AgentConfig {
  const { config } = state;
  if (config.instructions_provider === null && state.instructions === config.instructions) return config;
  return { ...config, instructions: state.instructions, instructions_provider: null };
}

/**
 * Asks the agent's instructions provider (a `resolveInstructions` activity; its answer is recorded,
 * so a replay uses it) at the start of a fresh run: a run continued from another execution keeps
 * the instructions it carried. Does nothing for an agent without a provider.
 */
export async function resolveRunInstructions(state: LoopState): Promise<void> {
  if (state.config.instructions_provider === null || state.carried?.instructions !== undefined) return;
  await resolveInstructions(state, 'instructions', taskOf(state));
}

/**
 * A thread turn's instructions, at its start: the static ones filled again (the turn's date), then
 * the provider's answer for this turn when the agent has one. The system prompt changes only when
 * the instructions did.
 */
export async function startTurnInstructions(state: LoopState, turn: number, message: string): Promise<void> {
  const { config } = state;
  const filled = filledInstructions(config.instructions, config, state.resourceId, 'thread');
  if (config.instructions_provider === null) return useInstructions(state, filled);
  await resolveInstructions(state, `turn-${turn}.instructions`, message, turn, filled);
}

/** The provider's answer (or the fallback, and why), as the run's instructions and an `instructions-resolved` event. */
async function resolveInstructions(
  state: LoopState,
  activityId: string,
  task: string,
  turn?: number,
  fallback: string = state.instructions,
): Promise<void> {
  const { config, resourceId } = state;
  const provider = config.instructions_provider!;
  const request = {
    provider,
    agent: config.name,
    task: task.slice(0, PROVIDER_TASK_CHARACTERS),
    ...(turn !== undefined ? { turn, threadId: workflowInfo().workflowId } : {}),
    ...(resourceId !== undefined ? { resourceId } : {}),
    injectedToolArgs: config.injected_tool_args,
    fallback,
    // The provider's own model calls share the agent's provider limits (docs/provider-limits.md).
    ...(config.provider_limits ? { providerLimits: config.provider_limits } : {}),
  };
  let resolution: { instructions: string } | { unavailable: string };
  try {
    resolution = await retriedCall(state, 'instructions', activityId, (attempt) =>
      proxyActivities<AgentActivities>({
        activityId: attempt.activityId,
        summary: activitySummary(attempt.activityId, `instructions from ${provider}`),
        startToCloseTimeout: state.timeouts.toolMs,
        heartbeatTimeout: state.timeouts.heartbeatMs,
        retry: attempt.retry,
      }).resolveInstructions({ ...request, ...attempt.input }),
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    resolution = { unavailable: describeFailure(error) };
  }
  const instructions = 'instructions' in resolution ? resolution.instructions : null;
  state.events.push({
    type: 'instructions-resolved',
    step: state.step,
    provider,
    source: instructions !== null ? 'provider' : 'fallback',
    characters: (instructions ?? fallback).length,
    ...('unavailable' in resolution ? { reason: resolution.unavailable } : {}),
  });
  useInstructions(state, instructions ?? fallback);
}

/** Makes `instructions` the run's, rebuilding the system prompt when they changed. */
function useInstructions(state: LoopState, instructions: string): void {
  if (instructions === state.instructions) return;
  state.instructions = instructions;
  state.threads.setSystem('executor', systemPromptOf(state));
}
