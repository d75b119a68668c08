// A named agent as callers give it (`startRun({ agent })`, threads, runAgent, schedules) and as the workers resolved it. Sandbox-safe.
import type { AgentConfig } from '../config/agent-config';

/**
 * Config fields a definition may let callers override for one run or thread; every other field is
 * the definition's. Values are checked as a config's are.
 */
export interface AgentOverrides {
  model?: string;
  temperature?: number;
  max_steps?: number;
  cost_limit?: number | null;
}

/**
 * An agent the workers define, named by its caller: the definition the task queue's workers offer
 * under `name` answers, resolved by them and recorded in the execution's history.
 * @example
 * const reference: AgentReference = { name: 'support', overrides: { model: 'openai:gpt-4o' } };
 */
export interface AgentReference {
  name: string;
  /**
   * The version to use: its content hash (`3f2a9c0d1b7e`) or its label (`release-42`). Default: the
   * definition the workers offer now. A thread given a version (or `pin`) stays on it.
   */
  version?: string;
  /** Fields the definition lets callers override (its `overridable`); others are refused. */
  overrides?: AgentOverrides;
}

/** Which definition answered: the agent's name, its version (content hash) and label. */
export interface AgentVersionRef {
  name: string;
  version: string;
  label: string | null;
}

/**
 * What the workers resolved a reference to (the `resolveAgent` local activity's result, recorded in
 * the history): the definition's version and, unless it is the version the caller already runs
 * (`unchanged`), its config with the overrides applied and the configs of the agents it hands off to.
 */
export type ResolvedAgent =
  ({ unchanged: false; config: AgentConfig; agents: Record<string, AgentConfig> } & AgentVersionRef) | ({ unchanged: true } & AgentVersionRef);

/** What the `resolveAgent` activity takes: the reference, and the version the caller runs now (if any). */
export interface ResolveAgentRequest {
  reference: AgentReference;
  /** The version the thread answers with now: when the workers offer the same, only that is recorded. */
  current?: string;
}

/**
 * How the build id of an unversioned worker with named agents begins (the rest hashes what it
 * offers): a thread reads it from the workflow task to know its definitions cannot have changed.
 */
export const AGENTS_BUILD_PREFIX = 'durable-agents.agents-';

/** `name@version` (or `name` alone): how the CLI, the AgentVersion search attribute and logs write a version. */
export function agentVersionText(ref: { name: string; version?: string | null }): string {
  return ref.version ? `${ref.name}@${ref.version}` : ref.name;
}

/** `support@3f2a9c0d1b7e (release-42)`: a resolved version as history, status and errors show it. */
export function agentVersionLabel(ref: AgentVersionRef): string {
  return `${ref.name}@${ref.version}${ref.label ? ` (${ref.label})` : ''}`;
}

/**
 * Reads `support` or `support@3f2a9c0d1b7e` (a version hash or a label after the `@`) as a
 * reference; undefined when the text is not one (empty name or version, more than one `@`).
 * @example
 * parseAgentText('support@release-42'); // { name: 'support', version: 'release-42' }
 */
export function parseAgentText(text: string): AgentReference | undefined {
  const parts = text.trim().split('@');
  if (parts.length > 2 || parts.some((part) => part === '')) return undefined;
  return parts.length === 2 ? { name: parts[0]!, version: parts[1]! } : { name: parts[0]! };
}

/** How a caller names an agent: `support`, `support@3f2a9c0d1b7e` (or `@<label>`), or a reference. */
export type AgentName = string | AgentReference;

/** What a start (`startRun`, a thread, `runAgent`) says of its agent: an inline config or a name, and what goes with each. */
export interface AgentChoiceFields {
  config?: unknown;
  agent?: AgentName;
  overrides?: AgentOverrides;
  /** Handoff targets' configs: only beside an inline config. */
  agents?: unknown;
}

/**
 * Why a start's fields do not name one agent, naming the field, or null: exactly one of `config`
 * and `agent`; `overrides` only with `agent`, and `agents` (handoff configs) only with `config`
 * (the workers know a named agent's handoff targets). The same rule for every caller, the
 * workflow sandbox included.
 * @example
 * agentChoiceProblem({ agent: 'support', config: { name: 'x' } }); // 'agent: give the agent a config or a name (agent), not both'
 */
export function agentChoiceProblem(fields: AgentChoiceFields): string | null {
  if (fields.config !== undefined && fields.agent !== undefined) return 'agent: give the agent a config or a name (agent), not both';
  if (fields.agent === undefined) {
    if (fields.config === undefined) return 'config: required, or name an agent the workers define (agent)';
    if (fields.overrides !== undefined) return 'overrides: only for a named agent (agent); change the config instead';
    return null;
  }
  if (fields.agents !== undefined) return "agents: a named agent's handoff targets are the workers' definitions; give no configs";
  return null;
}

/**
 * The reference `agent` names, with `overrides` merged over its own, or the problem naming the
 * `agent` field (a text that is not `name` or `name@version`, an empty name).
 * @example
 * agentReferenceOf('support@release-42', { model: 'openai:gpt-4o' });
 * // { name: 'support', version: 'release-42', overrides: { model: 'openai:gpt-4o' } }
 */
export function agentReferenceOf(agent: AgentName, overrides?: AgentOverrides): AgentReference | { problem: string } {
  const reference = typeof agent === 'string' ? parseAgentText(agent) : agent;
  if (!reference || typeof reference.name !== 'string' || reference.name.trim() === '') {
    return { problem: `agent: '${String(typeof agent === 'string' ? agent : agent?.name)}' is not an agent name (write name or name@version)` };
  }
  const merged = { ...reference.overrides, ...overrides };
  return { ...reference, ...(Object.keys(merged).length > 0 ? { overrides: merged } : {}) };
}
