// An agent's static instructions with their template variables filled: the date, the agent, the resource, the thread.
import { workflowInfo } from '@temporalio/workflow';
import type { AgentConfig } from '../../config/agent-config';
import { fillInstructionsTemplate, usesTemplateVariables } from '../../config/instructions-template';

/**
 * `text` with its template variables filled. A run's date is its first execution's start (the
 * same in every execution); a thread's, now (each turn fills its instructions again when it starts).
 */
export function filledInstructions(text: string, config: AgentConfig, resourceId: string | undefined, kind: 'run' | 'thread'): string {
  if (!usesTemplateVariables(text)) return text;
  const info = workflowInfo();
  return fillInstructionsTemplate(text, {
    agentName: config.name,
    startedAt: kind === 'run' ? info.startTime.getTime() : Date.now(),
    ...(resourceId !== undefined ? { resourceId } : {}),
    ...(kind === 'thread' ? { threadId: info.workflowId } : {}),
  });
}

/**
 * The instructions an execution starts with: those the execution it continues carried (a
 * provider's answer stays the same for the whole run), else the static ones with their template
 * variables filled. A thread's turns fill them again at each turn's start (`startTurnInstructions`).
 */
export function initialInstructions(
  config: AgentConfig,
  carried: { instructions?: string } | undefined,
  resourceId: string | undefined,
  kind: 'run' | 'thread',
): string {
  if (carried?.instructions !== undefined) return carried.instructions;
  return filledInstructions(config.instructions, config, resourceId, kind);
}
