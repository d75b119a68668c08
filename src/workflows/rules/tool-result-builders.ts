// Tool results the workflow makes itself (no tool activity ran: sub-agents, refusals, denials, unapproved calls), and their message form. Pure.
import type { ToolCall, ToolMessage } from '../../protocol/messages';
import type { ApprovalRecord, ToolResult } from '../../protocol/run-types';
import { formatDuration } from '../../config/duration';
import { ErrorCode } from '../../protocol/errors';
import { buildToolResult } from '../../protocol/tool-results';

/** A tool result as the model's conversation holds it. */
export function toToolMessage(result: ToolResult): ToolMessage {
  return {
    role: 'tool',
    toolCallId: result.callId,
    toolName: result.toolName,
    content: result.content,
    isError: result.isError,
  };
}

/** A tool result made in the workflow itself (no tool activity ran): sub-agents, refusals. */
export function workflowToolResult(
  call: ToolCall,
  step: number,
  startedAt: number,
  completedAt: number,
  content: string,
  errorCode?: string,
): ToolResult {
  return buildToolResult({ call, step, content, startedAt, completedAt, errorCode });
}

/** An error result made in the workflow itself, for example an unknown tool. */
export function workflowErrorResult(call: ToolCall, step: number, now: number, content: string, errorCode: string): ToolResult {
  return workflowToolResult(call, step, now, now, content, errorCode);
}

/**
 * A result the workflow made for a call of one of its own tools (handoffs, sub-agents), with the
 * call's injected args in its metadata: split off before the workflow acted on the call, as a
 * tool activity splits them off before the tool runs.
 */
export function withInjectedArgs(result: ToolResult, injected: Record<string, unknown>): ToolResult {
  return Object.keys(injected).length === 0 ? result : { ...result, metadata: { ...result.metadata, injected_args: injected } };
}

/**
 * The error result of a call a tool-policy rule or a before-tool hook denied (`ToolDenied`,
 * status `denied`): the tool did not run. Who denied it joins its metadata (`decided_by`).
 */
export function deniedResult(call: ToolCall, step: number, now: number, content: string, injectedArgs: Record<string, unknown>): ToolResult {
  const result = buildToolResult({ call, step, content, startedAt: now, completedAt: now, errorCode: ErrorCode.toolDenied, injectedArgs });
  return { ...result, metadata: { ...result.metadata, status: 'denied' } };
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
    errorCode: rejected ? ErrorCode.toolRejected : ErrorCode.approvalTimedOut,
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
      approval_decided_by: approval.decidedBy,
      approval_reason: approval.reason,
    },
  };
}
