// How a tool call ended, as its result records it: status, timings, approval, and who decided about the call.
import { policyDecider, type CallDecider, type ToolDecision } from './call-deciders';
import type { ToolPolicyMatch } from './tool-policy-types';

/**
 * How a tool call ended: it ran (`success` or `error`), a human rejected it or let it time out, or
 * a rule of the agent's `tool_policies` denied it (`denied`).
 */
export type ToolResultStatus = 'success' | 'error' | 'rejected' | 'timed_out' | 'denied';
/** The approval part of a tool call: `not_required` for tools outside `hitl_tools`. */
export type ApprovalStatus = 'not_required' | 'approved' | 'rejected' | 'timed_out';

/** The canonical record of one tool execution (the seeds' ToolResultMetadata). */
export interface ToolResultMetadata {
  status: ToolResultStatus;
  /** Epoch milliseconds. */
  started_at: number;
  completed_at: number;
  execution_time_ms: number;
  approval_status: ApprovalStatus;
  approval_id: string | null;
  injected_args: Record<string, unknown>;
  offloaded_artifact_id: string | null;
  /** Who decided a gated call (the decision's `decidedBy`); null when not given or not gated. */
  approval_decided_by?: string | null;
  /** Why (the decision's `reason`); null when not given or not gated. */
  approval_reason?: string | null;
  /**
   * Who decided about the call besides the model, in the order they decided: a before-tool hook
   * that did more than let it through, then the rule of `tool_policies` that matched it. A denied
   * call (`status: 'denied'`) names who denied it here. Absent when neither did anything.
   */
  decided_by?: CallDecider[];
}

/** The two fields `decided_by` replaced, as results recorded before it carry them. */
interface EarlierDeciderFields {
  policy?: ToolPolicyMatch;
  hook_decision?: { hook: string; action: ToolDecision['action']; reason: string | null; args_changed: boolean };
}

/**
 * The deciders of a recorded result's call, in the order they decided: `decided_by`, or in a
 * result recorded before it (histories of the first tool-policies and lifecycle-hooks code) the
 * `hook_decision` and `policy` fields it replaced.
 */
export function callDecidersOf(metadata: ToolResultMetadata): CallDecider[] {
  if (metadata.decided_by) return metadata.decided_by;
  const earlier = metadata as ToolResultMetadata & EarlierDeciderFields;
  const deciders: CallDecider[] = [];
  if (earlier.hook_decision) {
    const { hook, action, reason, args_changed } = earlier.hook_decision;
    deciders.push({ kind: 'hook', hook, action, reason, modified: args_changed });
  }
  if (earlier.policy) deciders.push(policyDecider(earlier.policy));
  return deciders;
}
