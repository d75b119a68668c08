import type { AgentConfig } from '../config/agent-config';
import type { Message, ToolCall } from './messages';
import type { AgentRunResult, CarriedState, ModelStepResult, StopReason } from './run-types';

/**
 * What follows a model reply, and the step it may be taken at: pure rules that the run
 * (src/workflows) and the client planning a fork (src/client/fork.ts) must apply alike, so a
 * fork sees the step the way the run took it. Here, in protocol, because both sides may import
 * protocol and the client does not import workflow code.
 */

/** The last step this agent may take: its max_steps count from where it took over. */
export function stepLimitOf(config: Pick<AgentConfig, 'max_steps'>, carried: CarriedState | undefined): number {
  return (carried?.stepBase ?? 0) + config.max_steps;
}

/**
 * What follows an executor reply: its tool calls run; a text answer finishes the run, unless it
 * failed the output schema, when the model is asked to correct it (or, on the last step, the
 * run stops with `output_invalid`). `outputRejected` is the schema error to report.
 */
export type NextMove =
  | { kind: 'run-tools'; calls: ToolCall[] }
  | { kind: 'correct-output'; outputRejected: string; correction: Message }
  | { kind: 'finish'; stopReason: StopReason; output: string; extra: Partial<AgentRunResult>; outputRejected?: string };

/** The move after an executor reply of `step` (of at most `stepLimit`). */
export function nextMove(reply: ModelStepResult, step: number, stepLimit: number): NextMove {
  const { content, toolCalls } = reply.message;
  if (toolCalls.length > 0) return { kind: 'run-tools', calls: toolCalls };
  if (reply.outputError === undefined) {
    return {
      kind: 'finish',
      stopReason: 'completed',
      output: content,
      extra: reply.structuredOutput !== undefined ? { structuredOutput: reply.structuredOutput } : {},
    };
  }
  if (step === stepLimit) {
    return {
      kind: 'finish',
      stopReason: 'output_invalid',
      output: content,
      extra: { stopDetail: reply.outputError },
      outputRejected: reply.outputError,
    };
  }
  return { kind: 'correct-output', outputRejected: reply.outputError, correction: outputCorrectionMessage(reply.outputError) };
}

/** The message that asks the model to fix a final answer that failed the output schema. */
export function outputCorrectionMessage(reason: string): Message {
  return {
    role: 'user',
    content: `Your answer did not match the required output schema: ${reason}. Reply again with only a JSON value that matches the schema.`,
  };
}
