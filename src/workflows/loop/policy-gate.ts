// Tool policies in the step loop: what the agent's tool_policies do to a call before it runs.
import { matchToolPolicy, toolGate } from '../../config/tool-policy-rules';
import type { ToolCall } from '../../protocol/messages';
import type { ToolResult } from '../../protocol/run-types';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import type { ToolPolicyMatch } from '../../protocol/tool-policy-types';
import { deniedResult } from '../rules/tool-result-builders';
import type { LoopState } from './loop-state';

/** What a call's policy says: the matching rule (recorded in its result), whether it waits for an approval, or its denial. */
export interface PolicyVerdict {
  match: ToolPolicyMatch | null;
  gated: boolean;
  /** The error result of a denied call (it does not run); the caller adds who decided (`decided_by`). */
  denied: ToolResult | null;
}

/**
 * The verdict on a call the route says is `inHitlTools` or not: the strictest of the matching
 * rule and `hitl_tools` (tool-policy-rules.ts). Pure.
 */
export function policyVerdict(state: LoopState, call: ToolCall, inHitlTools: boolean): PolicyVerdict {
  const { executable, injected } = splitInjectedArgs(call.args, state.injectedArgNames);
  const match = matchToolPolicy(state.config.tool_policies, call.name, executable);
  const gate = toolGate(match, inHitlTools);
  if (match === null) return { match: null, gated: inHitlTools, denied: null };
  if (gate !== 'deny') return { match, gated: gate === 'require_approval', denied: null };
  const content = `Error: the call to '${call.name}' was denied by policy (tool_policies[${match.rule}]): ${match.reason}. The tool did not run.`;
  return { match, gated: false, denied: deniedResult(call, state.step, Date.now(), content, injected) };
}
