// Tool policies, pure: which rule of an agent's tool_policies decides a call (sandbox-safe, used by the workflow).
import { Validator, type Schema } from '@cfworker/json-schema';
import type { ToolPolicyAction, ToolPolicyMatch } from '../protocol/tool-policy-types';

/**
 * The rules (docs/tool-policies.md): the rules of `tool_policies` are read in order, and the first
 * whose `tool` pattern matches the tool's name and whose `when` condition (a JSON Schema, draft
 * 2020-12) accepts the call's executable arguments decides: `allow`, `deny` or `require_approval`.
 * No rule matching leaves the call to `hitl_tools`. `hitl_tools` is a floor: a tool listed there
 * needs an approval even when a rule allows it.
 *
 * Both libraries are interpreters without code generation or I/O, so the same config gives the
 * same verdict on every worker and in every replay: picomatch (its POSIX build, no Node imports)
 * for the name patterns, @cfworker/json-schema (made for runtimes that forbid `eval`) for the
 * conditions.
 */

/** One rule of an agent's `tool_policies`, as validated. */
export interface ToolPolicyRule {
  /** A tool name or glob pattern (`delete_*`, `github__*`, `{refund,charge}`), or a list of them. */
  tool: string | string[];
  /** JSON Schema (draft 2020-12) the call's executable arguments must match for the rule to apply. */
  when?: Record<string, unknown>;
  action: ToolPolicyAction;
  /** Why, in words: shown to the model on a denial and to the approver on an approval request. */
  reason?: string;
}

/** The JSON Schema draft of `when` conditions, for the evaluator and for the config check alike. */
export const CONDITION_DRAFT = '2020-12';

/** A rule's patterns as a list. */
export function toolPatternsOf(rule: Pick<ToolPolicyRule, 'tool'>): string[] {
  return typeof rule.tool === 'string' ? [rule.tool] : rule.tool;
}

/** Glob options, the same for matching and for the config check: names may start with a dot; brackets must balance. */
const PATTERN_OPTIONS = { dot: true, strictBrackets: true } as const;

/**
 * picomatch, required at its first use. It keeps regular expressions with the global flag at
 * module level; the worker deep-freezes the modules it preloads into the state every workflow
 * shares, which would break them, so it loads into the workflow's own module state instead (only
 * runs whose agent has tool policies pay for it).
 */
function picomatch(): typeof import('picomatch/posix') {
  return require('picomatch/posix') as typeof import('picomatch/posix');
}

/** Whether `pattern` (a tool name or a glob) matches the tool name `name`; case-sensitive, `*` matches any run of characters. */
export function toolPatternMatches(pattern: string, name: string): boolean {
  return picomatch()(pattern, PATTERN_OPTIONS)(name);
}

/** Why `pattern` is not a usable glob (an unbalanced bracket, brace or parenthesis), or null. */
export function toolPatternProblem(pattern: string): string | null {
  try {
    picomatch().makeRe(pattern, PATTERN_OPTIONS);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Whether a `when` condition accepts the arguments (no condition: always). */
export function conditionHolds(when: Record<string, unknown> | undefined, args: Record<string, unknown>): boolean {
  return when === undefined || new Validator(when as Schema, CONDITION_DRAFT, true).validate(args).valid;
}

/** The rule that decides a call to `toolName` with these executable arguments, or null when none matches. */
export function matchToolPolicy(rules: readonly ToolPolicyRule[], toolName: string, args: Record<string, unknown>): ToolPolicyMatch | null {
  for (const [index, rule] of rules.entries()) {
    if (!toolPatternsOf(rule).some((pattern) => toolPatternMatches(pattern, toolName))) continue;
    if (!conditionHolds(rule.when, args)) continue;
    return { rule: index, action: rule.action, reason: rule.reason ?? defaultReason(rule, index) };
  }
  return null;
}

/** "tool_policies[2]: calls to delete_* are denied" when a rule gives no reason of its own. */
function defaultReason(rule: ToolPolicyRule, index: number): string {
  const tools = toolPatternsOf(rule).join(', ');
  const which = rule.when ? `calls to ${tools} with arguments matching its condition` : `calls to ${tools}`;
  const verdict = rule.action === 'deny' ? 'are denied' : rule.action === 'allow' ? 'are allowed' : 'need an approval';
  return `tool_policies[${index}]: ${which} ${verdict}`;
}

/**
 * What happens to a call, all things considered: the strictest of the matching rule's action and
 * `hitl_tools` (deny, then require_approval, then allow).
 */
export function toolGate(match: ToolPolicyMatch | null, inHitlTools: boolean): ToolPolicyAction {
  if (match?.action === 'deny') return 'deny';
  return inHitlTools || match?.action === 'require_approval' ? 'require_approval' : 'allow';
}
