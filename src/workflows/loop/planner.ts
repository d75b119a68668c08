import type { PlanArtifact } from '../../protocol/run-types';
import { DEFAULT_PLANNER_PROMPT, planArtifact, taskWithPlan } from '../rules/run-prompts';
import { toToolMessage } from '../rules/tool-result-builders';
import type { ApprovalGate } from './approval-gate';
import { callModel } from './model-calls';
import { enterPhase } from './run-lifecycle';
import { taskOf, type LoopState } from './loop-state';
import { runToolCalls } from './tool-dispatch';
import { filledInstructions } from '../rules/filled-instructions';

/**
 * The planner phase (`planning_enabled`; fresh runs, and each turn of a thread): the plan is made
 * on its own transcript, then joins the executor's conversation appended to the task message.
 */
export async function runPlanner(state: LoopState, approvals: ApprovalGate, request: PlanRequest = runPlanRequest(state)): Promise<void> {
  state.plan = await makePlan(state, approvals, request);
  state.threads.replace('executor', request.messageIndex, { role: 'user', content: taskWithPlan(request.task, state.plan) });
  state.events.push({ type: 'plan-created', plan: state.plan });
}

/** What a plan is made for: the request, where it sits in the executor's conversation, and the planner's activity id prefix. */
export interface PlanRequest {
  task: string;
  messageIndex: number;
  /** Prefixed to the planner's step names (`plan-1`): empty in runs, `turn-<n>.` in a thread's turns. */
  idPrefix: string;
}

/** A run's plan request: its task. */
function runPlanRequest(state: LoopState): PlanRequest {
  return { task: taskOf(state), messageIndex: state.taskIndex, idPrefix: '' };
}

/**
 * Up to `max_steps` planner model steps (`plan-<n>.model`, with the planning model and
 * instructions) and their tool calls; the plan is the first text-only answer, or the last text
 * when the steps run out. Only the plan text comes back. The planner's tools are the executor's,
 * but its calls leave the executor's run as it was: a handoff call is refused (claimHandoff).
 */
async function makePlan(state: LoopState, approvals: ApprovalGate, request: PlanRequest): Promise<PlanArtifact> {
  const { config, threads } = state;
  const plannerModel = config.planning_model ?? config.model;
  const instructions = filledInstructions(config.planning_instructions.trim(), config, state.resourceId, state.execution.kind);
  threads.start('planner', instructions || DEFAULT_PLANNER_PROMPT, [{ role: 'user', content: request.task }]);
  enterPhase(state, 'planning');
  for (let plannerStep = 1; plannerStep <= config.max_steps; plannerStep++) {
    const reply = await callModel(state, 'planner', `${request.idPrefix}plan-${plannerStep}.model`, plannerModel);
    threads.push('planner', reply.message);
    if (reply.message.toolCalls.length === 0) return planArtifact(reply.message.content, plannerModel, plannerStep);
    const results = await runToolCalls(state, approvals, reply.message.toolCalls, `${request.idPrefix}plan-${plannerStep}`, 'planner');
    for (const result of results) threads.push('planner', toToolMessage(result));
  }
  return planArtifact(threads.lastAssistantText('planner'), plannerModel, config.max_steps);
}
