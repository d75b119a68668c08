// The agents a worker offers, by name: checked against what the worker has when it is created.
import { createHash } from 'node:crypto';
import type { AgentOffer } from '../protocol/agent-offers';
import { AGENTS_BUILD_PREFIX } from '../protocol/agent-reference';
import { splitMcpToolName } from '../protocol/mcp-tool-names';
import { AgentDefinitionError } from './agent-definition-error';
import type { AgentDefinition } from './define-agent';

/** What a worker has that definitions may name. */
export interface WorkerCapabilities {
  /** Its tools, built-ins included (`ToolRegistry.names()`). */
  tools: readonly string[];
  /** Its instructions providers, by name. */
  instructionsProviders: readonly string[];
}

/**
 * The agents a worker offers, one definition a name. Built when the worker is created, which it
 * refuses to be (`AgentDefinitionError`) when two definitions share a name or one names a tool,
 * an instructions provider, a handoff target or a sub-agent the worker does not have.
 * @example
 * const registry = new AgentRegistry([support, billing], { tools: tools.names(), instructionsProviders: [] });
 * registry.get('support')?.version; // '3f2a9c0d1b7e'
 */
export class AgentRegistry {
  private readonly byName = new Map<string, AgentDefinition>();

  constructor(definitions: Iterable<AgentDefinition>, worker: WorkerCapabilities) {
    for (const definition of definitions) {
      const earlier = this.byName.get(definition.name);
      if (earlier)
        throw new AgentDefinitionError(definition.source, [`name: agent '${definition.name}' is defined twice (also in ${earlier.source})`]);
      this.byName.set(definition.name, definition);
    }
    for (const definition of this.byName.values()) this.check(definition, worker);
  }

  /** The definition of agent `name`, or undefined. */
  get(name: string): AgentDefinition | undefined {
    return this.byName.get(name);
  }

  /** The agents' names, sorted. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /**
   * The build id of an unversioned worker that offers these agents (`AGENTS_BUILD_PREFIX` and a
   * hash of every `name@version`): two workers with the same one offer the same definitions, so a
   * named thread on such a worker need not ask again before each turn. Null when it offers none.
   */
  buildId(): string | null {
    if (this.byName.size === 0) return null;
    const versions = this.names().map((name) => `${name}@${this.byName.get(name)!.version}`);
    return `${AGENTS_BUILD_PREFIX}${createHash('sha256').update(versions.join('\n')).digest('hex').slice(0, 16)}`;
  }

  /** What `durable-agents agents list` shows of each agent, by name. */
  offers(): AgentOffer[] {
    return this.names().map((name) => {
      const { version, label, config, overridable } = this.byName.get(name)!;
      return {
        name,
        version,
        label,
        model: config.model,
        tools: [...config.tools],
        handoffs: [...config.handoffs],
        overridable: [...overridable],
        ...(config.description !== undefined ? { description: config.description } : {}),
        ...(config.output_type !== null ? { outputType: config.output_type } : {}),
        ...(config.expose !== undefined ? { expose: [...config.expose] } : {}),
      };
    });
  }

  private check(definition: AgentDefinition, worker: WorkerCapabilities): void {
    const { config } = definition;
    const servers = new Set(config.mcp_servers.map((server) => server.name));
    const problems = [
      ...config.tools
        .filter((tool) => {
          const mcp = splitMcpToolName(tool);
          return mcp ? !servers.has(mcp.server) : !worker.tools.includes(tool);
        })
        .map((tool) =>
          splitMcpToolName(tool)
            ? `tools: '${tool}' names MCP server '${splitMcpToolName(tool)!.server}', which is not among the agent's mcp_servers`
            : `tools: '${tool}' is not a tool of this worker (it has: ${[...worker.tools].sort().join(', ') || 'none'})`,
        ),
      ...(config.instructions_provider !== null && !worker.instructionsProviders.includes(config.instructions_provider)
        ? [
            `instructions_provider: '${config.instructions_provider}' is not an instructions provider of this worker (it has: ${worker.instructionsProviders.join(', ') || 'none'})`,
          ]
        : []),
      ...this.undefinedAgents('handoffs', config.handoffs),
      ...this.undefinedAgents('subagents', config.subagents ?? []),
    ];
    if (problems.length > 0) throw new AgentDefinitionError(definition.source, problems);
  }

  /** A problem for each agent of `names` this worker does not define, at `field` (the agents a definition hands off or delegates to). */
  private undefinedAgents(field: 'handoffs' | 'subagents', names: readonly string[]): string[] {
    return names
      .filter((target) => !this.byName.has(target))
      .map((target) => `${field}: '${target}' is not an agent this worker defines (it defines: ${this.names().join(', ')})`);
  }
}
