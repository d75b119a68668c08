import { proxyActivities } from '@temporalio/workflow';
import { runAgent } from 'durable-agents/workflow';
import type * as activities from './activities.js';

const { openTicket } = proxyActivities<typeof activities>({ startToCloseTimeout: '30 seconds' });

export interface SupportCaseInput {
  task: string;
  /** Absolute path of the scripted model's YAML (the worker reads it). */
  modelScript: string;
}

export interface SupportCaseResult {
  ticket: string;
  answer: string;
  agentSteps: number;
}

/**
 * The consumer's own workflow: files a ticket with its own activity, then lets an agent answer the
 * case as a child workflow (the agent run) and returns the agent's answer.
 */
export async function supportCase(input: SupportCaseInput): Promise<SupportCaseResult> {
  const ticket = await openTicket(input.task);
  const result = await runAgent({
    config: { name: 'support-child', model: `scripted:${input.modelScript}`, tools: ['lookup_order'] },
    task: input.task,
  });
  return { ticket, answer: result.output, agentSteps: result.steps };
}
