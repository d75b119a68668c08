// Which agent a run or thread starts with: an inline config, or one the workers define, named by the caller.
import type { AgentConfig, AgentConfigInput } from '../config/agent-config';
import { agentChoiceProblem, agentReferenceOf, type AgentName, type AgentOverrides, type AgentReference } from '../protocol/agent-reference';
import { AgentConfigError } from '../protocol/errors';
import { prepareAgents, type PreparedAgents } from './prepared-agents';

export type { AgentName };

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
  const problem = agentChoiceProblem(options);
  if (problem) refuse(problem);
  if (options.agent === undefined) return { kind: 'inline', ...prepareAgents(options.config!, options.agents, options.resourceId, what) };
  const reference = agentReferenceOf(options.agent, options.overrides);
  return 'problem' in reference ? refuse(reference.problem) : { kind: 'named', reference };
}

/** The input fields of a choice: the config and handoff configs, or the reference. */
export function agentFields(choice: AgentChoice): { config: AgentConfig; agents?: Record<string, AgentConfig> } | { agent: AgentReference } {
  if (choice.kind === 'named') return { agent: choice.reference };
  return { config: choice.config, ...(Object.keys(choice.agents).length > 0 ? { agents: choice.agents } : {}) };
}
