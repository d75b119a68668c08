import { parseAgentConfig, type AgentConfig, type AgentConfigInput } from './agent-config';
import { AgentConfigError } from '../protocol/errors';

/**
 * The configs of every agent reachable through handoffs, validated; `normalize` is applied to each
 * (the client makes skill folders absolute). Pure, so workflows use it too.
 * @throws AgentConfigError naming a handoff without a config, or an invalid agent config.
 */
export function resolveHandoffAgents(
  config: AgentConfig,
  known: Record<string, AgentConfigInput | AgentConfig>,
  normalize: (config: AgentConfig) => AgentConfig = (parsed) => parsed,
): Record<string, AgentConfig> {
  const resolved: Record<string, AgentConfig> = {};
  const pending = [...config.handoffs];
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (resolved[name] || name === config.name) continue;
    const raw = known[name];
    if (!raw) {
      throw new AgentConfigError(
        `Invalid agent config:\n  handoffs: no config for agent '${name}' (known agents: ${Object.keys(known).join(', ') || 'none'})`,
        [`handoffs: no config for agent '${name}'`],
      );
    }
    resolved[name] = normalize(parseAgentConfig(raw, `agent '${name}'`));
    pending.push(...resolved[name]!.handoffs);
  }
  if (config.handoffs.length > 0 || Object.keys(resolved).length > 0) resolved[config.name] = config;
  return resolved;
}
