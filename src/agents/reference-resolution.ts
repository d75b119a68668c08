// A caller's reference resolved against the agents a worker defines: the definition, its overrides applied, and the agents it hands off to.
import type { AgentConfig } from '../config/agent-config';
import { AgentNotFoundError, offeredVersions } from '../protocol/agent-errors';
import type { ResolveAgentRequest, ResolvedAgent } from '../protocol/agent-reference';
import { assertOverridesApply, withOverrides } from './agent-overrides';
import type { AgentRegistry } from './agent-registry';

/**
 * What `request` names among `registry`'s agents: the definition of its name (at its version or
 * label, when it names one), with its overrides applied, and the configs of every agent it hands
 * off to (and theirs). When the definition is the version the caller runs now (`current`), only
 * the version is returned: the caller keeps its config.
 * @throws AgentNotFoundError (the name, or the version, is not defined here: the error lists what is);
 * AgentOverrideError for an override the definition does not allow or a value that does not validate.
 * @example
 * resolveAgentReference(registry, { reference: { name: 'support', overrides: { model: 'openai:gpt-4o' } } });
 */
export function resolveAgentReference(registry: AgentRegistry | undefined, request: ResolveAgentRequest): ResolvedAgent {
  const { reference, current } = request;
  const definition = registry?.get(reference.name);
  const offered = registry ? offeredVersions(registry.offers()) : [];
  if (!definition) throw new AgentNotFoundError(reference.name, offered);
  const { version, label, name } = definition;
  if (reference.version !== undefined && reference.version !== version && reference.version !== label) {
    throw new AgentNotFoundError(`${name}@${reference.version}`, offered);
  }
  const ref = { name, version, label };
  if (current === version) return { unchanged: true, ...ref };
  assertOverridesApply(name, reference.overrides, definition.overridable, definition.config);
  return {
    unchanged: false,
    ...ref,
    config: withOverrides(definition.config, reference.overrides),
    agents: handoffClosure(registry!, definition.config),
  };
}

/** The configs of every agent `config` hands off to, and of theirs, by name (all defined: the registry checked). */
function handoffClosure(registry: AgentRegistry, config: AgentConfig): Record<string, AgentConfig> {
  const agents: Record<string, AgentConfig> = {};
  const pending = [...config.handoffs];
  for (let target = pending.pop(); target !== undefined; target = pending.pop()) {
    if (target in agents || target === config.name) continue;
    const definition = registry.get(target)!;
    agents[target] = definition.config;
    pending.push(...definition.config.handoffs);
  }
  return agents;
}
