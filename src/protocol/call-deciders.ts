// Who decided what happens to a tool call besides the model: one record for a tool-policy rule and a before-tool hook.
import type { ToolDecision } from './hook-types';
import type { ToolResult, ToolResultMetadata } from './run-types';
import type { ToolPolicyMatch } from './tool-policy-types';

/**
 * One decision about a tool call, by a rule of the agent's `tool_policies` or by a worker's
 * before-tool hook (docs/tool-policies.md, docs/hooks.md). The same record is an approval's
 * reason (`ApprovalRequest.requiredBy`) and a result's history (`metadata.decided_by`), so a
 * reader sees one model whoever decided:
 * - `policy`: the rule's index in `tool_policies`, its action and reason;
 * - `hook`: the hook's name, its action (`fail`: the hook threw under `hook_errors: fail`), its
 *   reason, and whether it modified the call's arguments (the call ran with the hook's).
 * @example
 * import type { CallDecider } from 'durable-agents';
 *
 * const why = (decider: CallDecider): string =>
 *   decider.kind === 'policy' ? `tool_policies[${decider.rule}]: ${decider.reason}` : `hook ${decider.hook}: ${decider.reason ?? decider.action}`;
 */
export type CallDecider =
  ({ kind: 'policy' } & ToolPolicyMatch) | { kind: 'hook'; hook: string; action: ToolDecision['action']; reason: string | null; modified: boolean };

/** The record of a tool-policy rule that matched a call. */
export function policyDecider(match: ToolPolicyMatch): CallDecider {
  return { kind: 'policy', rule: match.rule, action: match.action, reason: match.reason };
}

/** The record of a before-tool hook's decision (as the model step recorded it). */
export function hookDecider(decision: ToolDecision): CallDecider {
  return { kind: 'hook', hook: decision.hook, action: decision.action, reason: decision.reason ?? null, modified: decision.args !== undefined };
}

/** "tool_policies[0] (Refunds over 100 need a second pair of eyes)", "hook refund-limit (over 100)": how a decider is printed. */
export function describeCallDecider(decider: CallDecider): string {
  const who = decider.kind === 'policy' ? `tool_policies[${decider.rule}]` : `hook ${decider.hook}`;
  return decider.reason ? `${who} (${decider.reason})` : who;
}

/** A result with the deciders of its call added to its metadata (`decided_by`); unchanged when there are none. */
export function withDeciders(result: ToolResult, deciders: readonly CallDecider[]): ToolResult {
  if (deciders.length === 0) return result;
  return { ...result, metadata: { ...result.metadata, decided_by: [...(result.metadata.decided_by ?? []), ...deciders] } };
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
