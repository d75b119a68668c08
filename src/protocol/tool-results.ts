// Building a tool call's result: its metadata from the facts, an approval's and the deciders' records added.
import type { CallDecider } from './call-deciders';
import type { ToolCall } from './messages';
import type { ApprovalRecord } from './run-status-types';
import type { ToolResult } from './run-types';

/** The facts a tool result is made of; the metadata follows from them. Pure (workflow-safe). */
export interface ToolResultFacts {
  call: ToolCall;
  step: number;
  content: string;
  startedAt: number;
  completedAt: number;
  /** Set for an error result the model sees (a stable code). */
  errorCode?: string;
  approvalId?: string | null;
  injectedArgs?: Record<string, unknown>;
  artifactId?: string | null;
}

/** A tool result with the seeds' metadata (status, timings, approval, injected args, artifact). */
export function buildToolResult(facts: ToolResultFacts): ToolResult {
  const isError = facts.errorCode !== undefined;
  return {
    callId: facts.call.id,
    toolName: facts.call.name,
    content: facts.content,
    isError,
    ...(isError ? { errorCode: facts.errorCode } : {}),
    step: facts.step,
    metadata: {
      status: isError ? 'error' : 'success',
      started_at: facts.startedAt,
      completed_at: facts.completedAt,
      execution_time_ms: facts.completedAt - facts.startedAt,
      approval_status: facts.approvalId ? 'approved' : 'not_required',
      approval_id: facts.approvalId ?? null,
      injected_args: facts.injectedArgs ?? {},
      offloaded_artifact_id: facts.artifactId ?? null,
    },
  };
}

/**
 * A result of a gated call that a human approved, with the decision in its metadata: approved,
 * the approval id, who decided and why (also for results the workflow makes itself, such as
 * sub-agent jobs).
 */
export function withApproval(result: ToolResult, approval: Pick<ApprovalRecord, 'approvalId' | 'decidedBy' | 'reason'>): ToolResult {
  return {
    ...result,
    metadata: {
      ...result.metadata,
      approval_status: 'approved',
      approval_id: approval.approvalId,
      approval_decided_by: approval.decidedBy,
      approval_reason: approval.reason,
    },
  };
}

/** A result with the deciders of its call added to its metadata (`decided_by`); unchanged when there are none. */
export function withDeciders(result: ToolResult, deciders: readonly CallDecider[]): ToolResult {
  if (deciders.length === 0) return result;
  return { ...result, metadata: { ...result.metadata, decided_by: [...(result.metadata.decided_by ?? []), ...deciders] } };
}
