// The zod schema of an agent's tool_policies, and the checks a rule must pass before any run starts.
import { z } from 'zod';
import { MEMORY_TOOLS, READ_ARTIFACT_TOOL, SPAWN_PARALLEL_TOOL, SPAWN_SELF_TOOL } from '../protocol/wire-names';
import { CONDITION_DRAFT, toolPatternMatches, toolPatternProblem, toolPatternsOf, type ToolPolicyRule } from './tool-policy-rules';

/** Tool-name characters and glob syntax; anything else can never match a tool name. */
const TOOL_PATTERN = /^[A-Za-z0-9_.\-*?[\]{}()!+@|,^]{1,128}$/;

const toolPattern = z
  .string()
  .regex(TOOL_PATTERN, 'must be a tool name or a glob pattern: letters, digits, "_", "." and "-", with * ? [ ] { } ( ) ! + @ | , for patterns')
  .superRefine((pattern, context) => {
    const problem = TOOL_PATTERN.test(pattern) ? toolPatternProblem(pattern) : null;
    if (problem) context.addIssue({ code: 'custom', message: `is not a valid glob pattern: ${problem}` });
  });

/**
 * The zod schema of one rule of an agent's `tool_policies`: which tools (`tool`, a name or glob
 * pattern, or a list), optionally which arguments (`when`, a JSON Schema the executable arguments
 * must match), what happens (`action`), and why (`reason`). The first matching rule decides;
 * docs/tool-policies.md has the rules.
 * @example
 * parseAgentConfig({
 *   name: 'support',
 *   tools: ['refund', 'send_email', 'delete_account'],
 *   tool_policies: [
 *     { tool: 'refund', when: { properties: { amount: { exclusiveMinimum: 100 } }, required: ['amount'] }, action: 'require_approval', reason: 'Refunds over 100 need a second pair of eyes' },
 *     { tool: 'delete_*', action: 'deny', reason: 'This agent never deletes' },
 *   ],
 * });
 */
export const toolPolicySchema = z.strictObject({
  tool: z.union([toolPattern, z.array(toolPattern).min(1)]),
  when: z.record(z.string(), z.unknown()).optional(),
  action: z.enum(['allow', 'deny', 'require_approval']),
  reason: z.string().min(1).max(500).optional(),
});

/** A problem of one rule, at its path in the config. */
export interface ToolPolicyProblem {
  path: (string | number)[];
  message: string;
}

/** The config fields `toolPolicyProblems` looks at. */
interface PolicyContext {
  tools: string[];
  tool_policies: ToolPolicyRule[];
  skill_sources: string[];
  mcp_servers: unknown[];
}

/**
 * What is wrong with the rules beyond their shape: a `when` that is not a valid JSON Schema
 * (checked strictly, so a misspelt keyword such as `exclusiveMinimun`, which the evaluator would
 * ignore and so match every call, is refused), and, when the agent's tools are all known (no skill
 * sources, no MCP servers), a rule that matches none of them (a misspelt name would never apply).
 */
export function toolPolicyProblems(config: PolicyContext): ToolPolicyProblem[] {
  const problems: ToolPolicyProblem[] = [];
  const knownTools = config.skill_sources.length === 0 && config.mcp_servers.length === 0 ? [...config.tools, ...BUILT_IN_TOOLS] : null;
  config.tool_policies.forEach((rule, index) => {
    // A `when` that is not an object at all is reported by the shape check.
    if (rule.when !== null && typeof rule.when === 'object' && !Array.isArray(rule.when)) {
      const problem = conditionProblem(rule.when);
      if (problem)
        problems.push({
          path: ['tool_policies', index, 'when'],
          message: `is not a valid condition (a JSON Schema, draft ${CONDITION_DRAFT}): ${problem}`,
        });
    }
    const patterns = toolPatternsOf(rule);
    // A pattern that is not a glob is reported by its own check.
    const usable = patterns.length > 0 && patterns.every((pattern) => TOOL_PATTERN.test(pattern) && toolPatternProblem(pattern) === null);
    if (knownTools && usable && !patterns.some((pattern) => knownTools.some((name) => toolPatternMatches(pattern, name)))) {
      problems.push({
        path: ['tool_policies', index, 'tool'],
        message: `${patterns.map((pattern) => `'${pattern}'`).join(', ')} matches none of this agent's tools (${config.tools.join(', ') || 'none'})`,
      });
    }
  });
  return problems;
}

/** Tools a run may have besides its config's `tools`. */
const BUILT_IN_TOOLS = [READ_ARTIFACT_TOOL, SPAWN_SELF_TOOL, SPAWN_PARALLEL_TOOL, ...MEMORY_TOOLS];

/**
 * Why a condition is not a valid JSON Schema, or null. Ajv compiles it in strict-schema mode
 * (unknown keywords and formats are errors; the formats the evaluator knows are accepted); it is
 * loaded only for configs that have conditions.
 */
function conditionProblem(when: Record<string, unknown>): string | null {
  const { Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
  const { format } = require('@cfworker/json-schema') as typeof import('@cfworker/json-schema');
  const ajv = new Ajv2020({
    strictSchema: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    logger: false,
    formats: Object.fromEntries(Object.keys(format).map((name) => [name, true])),
  });
  try {
    ajv.compile(when);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
