// Who decided what happens to a tool call besides the model: one record for a tool-policy rule and a before-tool hook.
import type { ToolPolicyMatch } from './tool-policy-types';

/**
 * A before-tool decision, taken in the model step that asked for the call and recorded with its
 * result (so it is taken once and replayed, never asked again): the call runs (with `args` when a
 * hook changed them), is denied (an error result the model sees), waits for an approval first, or
 * failed (a hook threw and the agent's `hook_errors` is `fail`: an error result, the tool does not run).
 * It lives here, beside the record it becomes (`hookDecider`), so the hook types can name
 * `CallDecider` without the two modules importing each other.
 */
export interface ToolDecision {
  action: 'allow' | 'deny' | 'require_approval' | 'fail';
  /** The hook that decided (for `allow`: the last one that changed the arguments). */
  hook: string;
  /** The executable arguments the call runs with, when a hook changed them (injected args stay as the model gave them). */
  args?: Record<string, unknown>;
  /** Why (the hook's reason, or the failure). */
  reason?: string;
}

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
