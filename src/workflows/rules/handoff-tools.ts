import type { AgentConfig } from '../../config/agent-config';
import { handoffToolName } from '../../protocol/handoff-tool-names';
import type { ToolSpec } from '../../protocol/messages';

/**
 * Handoffs, pure: each agent named in `handoffs` becomes a `transfer_to_<name>` tool; calling it
 * transfers the conversation to that agent (the workflow continues as new with its config).
 */
export { handoffToolName };

/** The handoff tools of an agent, for the model. Agents without a known config are left out. */
export function handoffToolSpecs(config: AgentConfig, agents: Record<string, AgentConfig>): ToolSpec[] {
  return config.handoffs
    .filter((name) => agents[name])
    .map((name) => ({
      name: handoffToolName(name),
      description: `Hand the conversation over to the agent '${name}'${agents[name]!.instructions ? `: ${agents[name]!.instructions.slice(0, 200)}` : ''}. It answers from here on.`,
      parameters: { type: 'object', properties: { reason: { type: 'string', description: 'Why this agent should take over' } } },
    }));
}

/** The agent a tool call hands off to, or null when the call is not a handoff of this agent. */
export function handoffTarget(toolName: string, config: Pick<AgentConfig, 'handoffs'>): string | null {
  return config.handoffs.find((name) => handoffToolName(name) === toolName) ?? null;
}
