// What the model is told, pure: the executor's system prompt, a run's first messages, the planner's prompt and plan, budget awareness.
import type { AgentConfig } from '../../config/agent-config';
import { budgetMode, contextWindowOf } from '../../config/agent-config-rules';
import type { Message } from '../../protocol/messages';
import type { AgentRunInput, PlanArtifact, StepBudget } from '../../protocol/run-types';

/**
 * The executor's system prompt: the instructions (the config's, or those the run resolved:
 * run-instructions.ts), plus the output contract when there is one.
 */
export function buildSystemPrompt(config: AgentConfig, instructions: string = config.instructions): string {
  const parts = [instructions.trim()];
  if (config.output_type) {
    parts.push(
      'When you give your final answer, reply with only a JSON value (no prose) that matches this JSON Schema:\n' +
        JSON.stringify(config.output_type),
    );
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The conversation a run starts from: any prior messages, then the task. */
export function initialMessages(input: AgentRunInput): Message[] {
  return [...(input.messages ?? []), { role: 'user', content: input.task }];
}

/** The planner's system prompt when `planning_instructions` is empty. */
export const DEFAULT_PLANNER_PROMPT =
  'You are the planning phase of an agent. Read the task and the tools available, then reply with a short ' +
  'numbered plan of the steps to take (one line each). You may call tools to look things up first. ' +
  'Do not carry out the task: the executor will follow your plan.';

/** The plan as a structured artifact: the text and its numbered (or bulleted) lines. */
export function planArtifact(text: string, model: string, plannerSteps: number): PlanArtifact {
  const steps = text
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*])\s+(.*\S)\s*$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined);
  return { text, steps, model, plannerSteps };
}

/** The task message the executor sees when a plan was made: the original task, then the plan. */
export function taskWithPlan(task: string, plan: PlanArtifact): string {
  return `${task}\n\nPlan from the planning phase:\n${plan.text}`;
}

/** Budget awareness of a config, as model steps apply it; null when off. */
export function stepBudget(config: AgentConfig): StepBudget | null {
  const mode = budgetMode(config);
  const contextWindow = contextWindowOf(config);
  if (mode.kind === 'off' || contextWindow === null) return null;
  return { mode: mode.kind, limitPercent: mode.kind === 'limit' ? mode.percent : null, contextWindow };
}
