// An agent defined in code (or read from a file): its validated config, name, version and label.
import { createHash } from 'node:crypto';
import { parseAgentConfig, type AgentConfig, type AgentConfigInput } from '../config/agent-config';
import { outputTypeProblem } from '../config/load-config';
import { AgentConfigError } from '../protocol/errors';
import { canonicalJson } from '../protocol/recorded-calls';
import { AgentDefinitionError } from './agent-definition-error';

/**
 * Config fields a definition may let callers override for one run or thread (an experiment with
 * another model, say); every other field is the definition's.
 * @example
 * defineAgent({ config: { name: 'support', model: 'openai:gpt-4o-mini' }, overridable: ['model', 'temperature'] });
 */
export const OVERRIDABLE_FIELDS = ['model', 'temperature', 'max_steps', 'cost_limit'] as const;

/** One of OVERRIDABLE_FIELDS. */
export type OverridableField = (typeof OVERRIDABLE_FIELDS)[number];

/** What `defineAgent` takes. */
export interface AgentDefinitionInput {
  /** The agent's config, as for a run (docs/configuration.md); its `name` is the agent's name. */
  config: AgentConfigInput;
  /** A label the team gives this version (a release, a git commit); the version itself is a content hash. */
  label?: string;
  /** Fields a caller may override (default: none): everything else is the definition's. */
  overridable?: readonly OverridableField[];
}

/** A named, versioned agent a worker offers: callers name it instead of sending its config. */
export interface AgentDefinition {
  readonly name: string;
  /** A hash of what the agent is (its config and what callers may override): equal definitions have equal versions. */
  readonly version: string;
  readonly label: string | null;
  readonly config: AgentConfig;
  readonly overridable: readonly OverridableField[];
  /** Where it was defined: `agent '<name>'` for code, the file for a folder. */
  readonly source: string;
}

/** Characters of the version hash: 12 hex digits (48 bits) tell a team's versions of one agent apart. */
const VERSION_LENGTH = 12;

/**
 * Defines an agent in code, to give to a worker (`AgentPlugin({ agents })`, `createAgentWorker`).
 * Callers then name it (`startRun({ agent: 'support', ... })`) and the workers resolve it.
 * @throws AgentDefinitionError naming the agent and every invalid field.
 * @example
 * import { defineAgent } from 'durable-agents/worker';
 *
 * export const support = defineAgent({
 *   config: { name: 'support', model: 'openai:gpt-4o-mini', instructions: 'Help with orders.', tools: ['lookup_order'] },
 *   label: '2026-11-28',
 *   overridable: ['model'],
 * });
 * // support.version: '3f2a9c0d1b7e' (a content hash)
 */
export function defineAgent(definition: AgentDefinitionInput): AgentDefinition {
  const named = (definition.config as { name?: unknown } | null)?.name;
  const source = typeof named === 'string' && named !== '' ? `agent '${named}'` : 'an agent definition';
  return definitionFrom(source, definition, () => {
    const config = parseAgentConfig(definition.config, source);
    const schemaProblem = outputTypeProblem(config.output_type);
    if (schemaProblem) throw new AgentConfigError(schemaProblem, [schemaProblem]);
    return config;
  });
}

/**
 * A definition from its parts, every problem reported at once: `parseConfig` validates the config
 * (throwing AgentConfigError), `source` is the place errors name (a file, for a folder's agents).
 * @throws AgentDefinitionError naming `source` and every invalid field.
 */
export function definitionFrom(source: string, parts: Omit<AgentDefinitionInput, 'config'>, parseConfig: () => AgentConfig): AgentDefinition {
  const problems: string[] = [];
  let config: AgentConfig | null = null;
  try {
    config = parseConfig();
  } catch (error) {
    if (!(error instanceof AgentConfigError)) throw error;
    problems.push(...error.problems);
  }
  const { label } = parts;
  if (label !== undefined && (typeof label !== 'string' || label.trim() === '' || label.length > 100)) {
    problems.push('label: must be a non-empty string of at most 100 characters');
  }
  const overridable: unknown = parts.overridable ?? [];
  const fields = Array.isArray(overridable) ? overridable : [];
  const unknown = fields.filter((field) => !(OVERRIDABLE_FIELDS as readonly unknown[]).includes(field));
  if (!Array.isArray(overridable) || unknown.length > 0) {
    const named = unknown.map((field) => `'${String(field)}'`).join(', ') || 'must be a list';
    problems.push(`overridable: ${named} (callers may override ${OVERRIDABLE_FIELDS.join(', ')})`);
  }
  if (problems.length > 0 || !config) throw new AgentDefinitionError(source, problems);
  const allowed = [...new Set(fields as OverridableField[])].sort();
  return { name: config.name, version: versionOf(config, allowed), label: label ?? null, config, overridable: allowed, source };
}

/** The content hash of a definition: its validated config (defaults filled) and what callers may override. */
function versionOf(config: AgentConfig, overridable: readonly string[]): string {
  return createHash('sha256').update(canonicalJson({ config, overridable })).digest('hex').slice(0, VERSION_LENGTH);
}
