// Which tool calls of a recorded model step waited for an approval: hitl_tools, a tool-policy rule, or a before-tool hook.
import type { AgentConfig } from '../config/agent-config';
import { matchToolPolicy, toolGate } from '../config/tool-policy-rules';
import type { ToolDecision } from '../protocol/call-deciders';
import type { ToolCall } from '../protocol/messages';
import { splitInjectedArgs } from '../protocol/split-injected-args';

/** What of a recorded run's config and history decides whether a call waited. */
export interface GateRules {
  /** Older configs may lack fields that have defaults now. */
  config: Partial<Pick<AgentConfig, 'hitl_tools' | 'tool_policies' | 'injected_tool_args'>>;
}

/**
 * Whether a call waited for an approval, by the run's own order (src/workflows/loop/tool-dispatch.ts):
 * the before-tool hook's recorded decision first (a denied or failed call never waits; changed
 * arguments are what the policies judge), then the strictest of the matching tool-policy rule and
 * `hitl_tools` (a deny wins), and a hook that required an approval.
 */
export function waitedForApproval(rules: GateRules, call: ToolCall, decision: ToolDecision | undefined): boolean {
  if (decision?.action === 'deny' || decision?.action === 'fail') return false;
  const injectedNames = Object.keys(rules.config.injected_tool_args ?? {});
  const { executable } = splitInjectedArgs(call.args, injectedNames);
  const inHitlTools = (rules.config.hitl_tools ?? []).includes(call.name);
  const match = matchToolPolicy(rules.config.tool_policies ?? [], call.name, decision?.args ?? executable);
  const gate = toolGate(match, inHitlTools);
  return gate !== 'deny' && (gate === 'require_approval' || decision?.action === 'require_approval');
}
