// The agent configs a run or a thread starts with: parsed, skill sources keyed, handoff agents resolved, resource checked.
import { parseAgentConfig, resourceIdProblems, type AgentConfig, type AgentConfigInput } from '../config/agent-config';
import { resolveHandoffAgents } from '../config/handoff-agents';
import { AgentConfigError } from '../protocol/errors';
import { withSkillSourceKeys } from '../skills/skill-source';

/** A run's or a thread's agent and the agents it may hand off to, ready for a workflow input. */
export interface PreparedAgents {
  config: AgentConfig;
  /** Handoff agents by name (empty when the agent hands off to none). */
  agents: Record<string, AgentConfig>;
}

/**
 * Validates and prepares the configs a workflow starts with, the same way for `startRun` and a
 * thread's creation: the config parsed, skill sources known by absolute paths or URLs (as runs,
 * signals and search attributes name them), every agent in `handoffs` (and in theirs) resolved
 * from `agents`, and the resource id checked against agents with `memory: true`.
 * @throws AgentConfigError naming the invalid fields, a missing handoff agent, or the resource
 * problem (`what` says whose options: `run` or `thread`).
 */
export function prepareAgents(
  given: AgentConfigInput | AgentConfig,
  handoffAgents: Record<string, AgentConfigInput | AgentConfig> | undefined,
  resourceId: string | undefined,
  what: 'run' | 'thread',
): PreparedAgents {
  const config = withSkillSourceKeys(parseAgentConfig(given));
  const agents = resolveHandoffAgents(config, handoffAgents ?? {}, (agent) => withSkillSourceKeys(agent));
  const problems = resourceIdProblems([config, ...Object.values(agents)], resourceId);
  if (problems.length > 0) throw new AgentConfigError(`Invalid ${what} options:\n  ${problems.join('\n  ')}`, problems);
  return { config, agents };
}
