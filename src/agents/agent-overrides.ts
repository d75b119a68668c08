// What a caller may change of a named agent for one run or thread: checked against the definition's `overridable`, values validated as a config's.
import { parseAgentConfig, type AgentConfig } from '../config/agent-config';
import { AgentOverrideError } from '../protocol/agent-errors';
import type { AgentOverrides } from '../protocol/agent-reference';
import { AgentConfigError } from '../protocol/errors';
import { OVERRIDABLE_FIELDS } from './define-agent';

/**
 * The problems of `overrides` for agent `name`, whose definition lets callers override `allowed`:
 * a field that is not overridable at all, one this definition keeps, or a value that does not
 * validate (with `config`, the definition's: together with it). Empty when they apply.
 * @example
 * overrideProblems('support', { temperature: 0 }, ['model']);
 * // ["temperature: agent 'support' does not let callers override it (it allows: model)"]
 */
export function overrideProblems(name: string, overrides: AgentOverrides | undefined, allowed: readonly string[], config?: AgentConfig): string[] {
  if (overrides === undefined) return [];
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) return ['overrides: must be a mapping of fields'];
  const fields = Object.keys(overrides);
  const refused = fields
    .filter((field) => !allowed.includes(field))
    .map((field) =>
      (OVERRIDABLE_FIELDS as readonly string[]).includes(field)
        ? `${field}: agent '${name}' does not let callers override it (it allows: ${allowed.join(', ') || 'nothing'})`
        : `${field}: not a field callers may override (only ${OVERRIDABLE_FIELDS.join(', ')}, where the definition allows it)`,
    );
  if (refused.length > 0) return refused;
  try {
    // Without the definition's config (a client that knows only what the workers offer), the values alone.
    if (config) withOverrides(config, overrides);
    else parseAgentConfig({ name, ...overrides }, `the overrides of agent '${name}'`);
    return [];
  } catch (error) {
    if (error instanceof AgentConfigError) return error.problems;
    throw error;
  }
}

/**
 * `config` with `overrides` applied, validated again as a whole (a model name's shape, a
 * temperature's range).
 * @throws AgentConfigError naming each invalid field.
 */
export function withOverrides(config: AgentConfig, overrides: AgentOverrides | undefined): AgentConfig {
  if (overrides === undefined || Object.keys(overrides).length === 0) return config;
  return parseAgentConfig({ ...config, ...overrides }, `the overrides of agent '${config.name}'`);
}

/**
 * Throws when `overrides` do not apply to agent `name` (see `overrideProblems`).
 * @throws AgentOverrideError (code `AgentOverrideRefused`) naming each field.
 */
export function assertOverridesApply(name: string, overrides: AgentOverrides | undefined, allowed: readonly string[], config?: AgentConfig): void {
  const problems = overrideProblems(name, overrides, allowed, config);
  if (problems.length > 0) throw new AgentOverrideError(name, problems);
}
