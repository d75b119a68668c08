// Which agent a run or thread starts with: an inline config, or one the workers define, named by the caller.
import type { AgentConfig, AgentConfigInput } from '../config/agent-config';
import { parseAgentText, type AgentOverrides, type AgentReference } from '../protocol/agent-reference';
import { AgentConfigError } from '../protocol/errors';
import { prepareAgents, type PreparedAgents } from './prepared-agents';

/** How a caller names the agent: `support`, `support@3f2a9c0d1b7e` (or `@<label>`), or a reference. */
export type AgentName = string | AgentReference;

/** What a start's options say of its agent. */
export interface AgentChoiceOptions {
  config?: AgentConfigInput | AgentConfig;
  agent?: AgentName;
  overrides?: AgentOverrides;
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  resourceId?: string;
}

/** An inline config (prepared: parsed, handoff agents resolved), or a named agent the workers resolve. */
export type AgentChoice = ({ kind: 'inline' } & PreparedAgents) | { kind: 'named'; reference: AgentReference };

/**
 * The agent of a start: exactly one of `config` and `agent`; `overrides` (and no `agents`: the
 * workers know a named agent's handoff targets) only with `agent`.
 * @throws AgentConfigError naming the field: both or neither given, a malformed name, overrides or
 * handoff configs beside an inline config or a name, an invalid config.
 * @example
 * chooseAgent({ agent: 'support@release-42', overrides: { model: 'openai:gpt-4o' } }, 'run');
 * // { kind: 'named', reference: { name: 'support', version: 'release-42', overrides: { model: 'openai:gpt-4o' } } }
 */
export function chooseAgent(options: AgentChoiceOptions, what: 'run' | 'thread'): AgentChoice {
  const refuse = (problem: string): never => {
    throw new AgentConfigError(`Invalid ${what} options:\n  ${problem}`, [problem]);
  };
  if (options.config !== undefined && options.agent !== undefined) refuse('agent: give the agent a config or a name (agent), not both');
  if (options.agent === undefined) {
    if (options.config === undefined) refuse(`config: required, or name an agent the workers define (agent)`);
    if (options.overrides !== undefined) refuse('overrides: only for a named agent (agent); change the config instead');
    return { kind: 'inline', ...prepareAgents(options.config!, options.agents, options.resourceId, what) };
  }
  if (options.agents !== undefined) refuse("agents: a named agent's handoff targets are the workers' definitions; give no configs");
  return { kind: 'named', reference: referenceOf(options.agent, options.overrides, refuse) };
}

/** The input fields of a choice: the config and handoff configs, or the reference. */
export function agentFields(choice: AgentChoice): { config: AgentConfig; agents?: Record<string, AgentConfig> } | { agent: AgentReference } {
  if (choice.kind === 'named') return { agent: choice.reference };
  return { config: choice.config, ...(Object.keys(choice.agents).length > 0 ? { agents: choice.agents } : {}) };
}

function referenceOf(agent: AgentName, overrides: AgentOverrides | undefined, refuse: (problem: string) => never): AgentReference {
  const reference = typeof agent === 'string' ? parseAgentText(agent) : agent;
  if (!reference || typeof reference.name !== 'string' || reference.name.trim() === '') {
    return refuse(`agent: '${String(typeof agent === 'string' ? agent : agent?.name)}' is not an agent name (write name or name@version)`);
  }
  const merged = { ...reference.overrides, ...overrides };
  return { ...reference, ...(Object.keys(merged).length > 0 ? { overrides: merged } : {}) };
}
