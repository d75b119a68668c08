import type { AgentConfig } from '../shared/agent-config';
import type { Message, ToolCall, ToolMessage, Usage } from '../shared/messages';
import type { AgentRunInput, ApprovalRecord, ToolResult, UsageSummary } from '../shared/run-types';
import { formatDuration } from '../shared/duration';

/**
 * Pure rules of the agent loop, free of Temporal calls so they are unit-tested without a server.
 */

/** The executor's system prompt: the instructions, plus the output contract when there is one. */
export function buildSystemPrompt(config: AgentConfig): string {
  const parts = [config.instructions.trim()];
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

export function emptyUsage(): UsageSummary {
  return { inputTokens: 0, outputTokens: 0, byModel: {} };
}

export function addUsage(summary: UsageSummary, model: string, usage: Usage): void {
  summary.inputTokens += usage.inputTokens;
  summary.outputTokens += usage.outputTokens;
  const perModel = (summary.byModel[model] ??= { inputTokens: 0, outputTokens: 0 });
  perModel.inputTokens += usage.inputTokens;
  perModel.outputTokens += usage.outputTokens;
}

export function toToolMessage(result: ToolResult): ToolMessage {
  return {
    role: 'tool',
    toolCallId: result.callId,
    toolName: result.toolName,
    content: result.content,
    isError: result.isError,
  };
}

/** An error result made in the workflow itself (no activity ran), for example an unknown tool. */
export function workflowErrorResult(call: ToolCall, step: number, now: number, content: string, errorCode: string): ToolResult {
  return {
    callId: call.id,
    toolName: call.name,
    content,
    isError: true,
    errorCode,
    step,
    metadata: {
      status: 'error',
      started_at: now,
      completed_at: now,
      execution_time_ms: 0,
      approval_status: 'not_required',
      approval_id: null,
      injected_args: {},
      offloaded_artifact_id: null,
    },
  };
}

/** The message that asks the model to fix a final answer that failed the output schema. */
export function outputCorrectionMessage(reason: string): Message {
  return {
    role: 'user',
    content: `Your answer did not match the required output schema: ${reason}. Reply again with only a JSON value that matches the schema.`,
  };
}

/** The text of the last assistant message, for a run that stops early. */
export function lastAssistantText(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant' && message.content) return message.content;
  }
  return '';
}

/** Tool-result content kept in the run result; the full content is in the history, once. */
export const RESULT_CONTENT_LIMIT = 1_000;

/** A tool result as the run result carries it: long content cut, so the result stays small. */
export function summarizeToolResult(result: ToolResult): ToolResult {
  if (result.content.length <= RESULT_CONTENT_LIMIT) return result;
  return { ...result, content: `${result.content.slice(0, RESULT_CONTENT_LIMIT)}…`, contentTruncated: true };
}

/** The result the model sees for a gated call that was rejected or timed out: the tool never ran. */
export function unapprovedResult(call: ToolCall, step: number, approval: ApprovalRecord): ToolResult {
  const decidedAt = approval.decidedAt ?? approval.expiresAt;
  const rejected = approval.outcome === 'rejected';
  const content = rejected
    ? `Error: the call to '${call.name}' was rejected${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}${approval.reason ? `: ${approval.reason}` : ''}. The tool did not run.`
    : `Error: the call to '${call.name}' was not approved within ${formatDuration(approval.expiresAt - approval.requestedAt)} (timed out). The tool did not run.`;
  return {
    callId: call.id,
    toolName: call.name,
    content,
    isError: true,
    errorCode: rejected ? 'ToolRejected' : 'ApprovalTimedOut',
    step,
    metadata: {
      status: rejected ? 'rejected' : 'timed_out',
      started_at: decidedAt,
      completed_at: decidedAt,
      execution_time_ms: 0,
      approval_status: rejected ? 'rejected' : 'timed_out',
      approval_id: approval.approvalId,
      injected_args: approval.injectedArgs,
      offloaded_artifact_id: null,
    },
  };
}
