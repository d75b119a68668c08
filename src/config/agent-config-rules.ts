/**
 * Pure helpers over a parsed agent config. Deliberately free of zod: workflow code imports this
 * module, and every module a workflow imports is initialised again for each workflow the worker
 * starts or replays (building the config schemas there cost about 20 ms per workflow).
 */
import type { AgentConfig } from './agent-config';
import { knownContextWindow } from './context-windows';
import { resourceIdProblem } from '../protocol/resource-id';
import { MEMORY_TOOLS, SPAWN_PARALLEL_TOOL } from '../protocol/wire-names';

/** Loop detection when a config does not set it: generous, so that polling a tool a few times is no loop. */
export const DEFAULT_LOOP_DETECTION: Readonly<{ max_repeats: number; max_cycle_length: number }> = { max_repeats: 10, max_cycle_length: 3 };

/** The budget mode of a config, decoded. */
export type BudgetMode = { kind: 'off' } | { kind: 'per-message' } | { kind: 'limit'; percent: number };

export function budgetMode(config: Pick<AgentConfig, 'budget_awareness'>): BudgetMode {
  const value = config.budget_awareness;
  if (value === null) return { kind: 'off' };
  if (value === 'per-message') return { kind: 'per-message' };
  return { kind: 'limit', percent: Number(value.slice('limit:'.length)) };
}

/** A summary of an agent's capabilities, as the seeds' `describe()` returns it (`describeAgent`). */
export interface AgentDescription {
  name: string;
  model: string;
  tools: string[];
  handoffs: string[];
  max_steps: number;
  output_type: AgentConfig['output_type'];
}

/**
 * The seeds' `describe()`: a summary of an agent's capabilities (name, model, tools, handoffs,
 * max_steps, output_type), for logs, debugging and advertising an agent to others. It describes
 * the config: the tools a run adds at run time (memory, skills, MCP servers' tools) are in the
 * run's `status().activeTools`.
 * @example
 * import { describeAgent, parseAgentConfig } from 'durable-agents';
 *
 * describeAgent(parseAgentConfig({ name: 'helper', model: 'anthropic:claude-sonnet-4-20250514', tools: ['get_weather'], max_steps: 5 }));
 * // { name: 'helper', model: 'anthropic:claude-sonnet-4-20250514', tools: ['get_weather'], handoffs: [], max_steps: 5, output_type: null }
 */
export function describeAgent(config: AgentConfig): AgentDescription {
  return {
    name: config.name,
    model: config.model,
    tools: [...config.tools],
    handoffs: [...config.handoffs],
    max_steps: config.max_steps,
    output_type: config.output_type,
  };
}

/**
 * Whether the agent may have tool `name` by its flags: `spawn_subagents` only with
 * `allow_parallel_subagents: true` (seed 001: with the flag off the tool is absent, whatever
 * lists it: `tools`, a skill's `allowed-tools`). Every other name is up to the lists.
 */
export function toolAllowedByFlags(name: string, config: Pick<AgentConfig, 'allow_parallel_subagents'>): boolean {
  return name !== SPAWN_PARALLEL_TOOL || config.allow_parallel_subagents;
}

/**
 * The tools a run of this agent starts with: its `tools` that its flags allow, `spawn_subagents`
 * when `allow_parallel_subagents` is on, the memory tools with `memory: true`. Pure (the
 * workflow builds its tool list with it).
 */
export function configuredTools(config: Pick<AgentConfig, 'tools' | 'allow_parallel_subagents' | 'memory'>): string[] {
  const tools = config.tools.filter((name) => toolAllowedByFlags(name, config));
  if (config.allow_parallel_subagents && !tools.includes(SPAWN_PARALLEL_TOOL)) tools.push(SPAWN_PARALLEL_TOOL);
  if (config.memory) tools.push(...MEMORY_TOOLS.filter((name) => !tools.includes(name)));
  return tools;
}

/**
 * `tools` listing `spawn_subagents` while `allow_parallel_subagents` is false: the flag decides
 * (such a run would not have the tool), so the config says so instead of silently dropping it.
 */
export function parallelSubagentProblems(
  config: Pick<AgentConfig, 'name' | 'tools' | 'allow_parallel_subagents' | 'subagents'>,
): Array<{ path: Array<string | number>; message: string }> {
  const named = namedSubagentProblems(config);
  if (config.allow_parallel_subagents) return named;
  return [
    ...named,
    ...config.tools.flatMap((name, index) =>
      name === SPAWN_PARALLEL_TOOL
        ? [
            {
              path: ['tools', index],
              message: `lists '${SPAWN_PARALLEL_TOOL}' but allow_parallel_subagents is false on agent '${config.name}': set allow_parallel_subagents: true to give the agent parallel sub-agents (the flag adds the tool; listing it is not needed), or remove it from tools`,
            },
          ]
        : [],
    ),
  ];
}

/**
 * `subagents` naming an agent twice, or naming agents while `allow_parallel_subagents` is false: a
 * named sub-agent is a `spawn_subagents` job, and without the flag the agent has no such tool.
 */
function namedSubagentProblems(
  config: Pick<AgentConfig, 'name' | 'allow_parallel_subagents' | 'subagents'>,
): Array<{ path: Array<string | number>; message: string }> {
  const names = config.subagents ?? [];
  const problems = names
    .filter((name, index) => names.indexOf(name) !== index)
    .map((name) => ({ path: ['subagents'], message: `Duplicate sub-agent name '${name}' on agent '${config.name}'` }));
  if (names.length > 0 && !config.allow_parallel_subagents) {
    problems.push({
      path: ['subagents'],
      message: `names agents, but allow_parallel_subagents is false on agent '${config.name}': sub-agents by name are jobs of '${SPAWN_PARALLEL_TOOL}', which the flag gives`,
    });
  }
  return problems;
}

/** Splits "provider:model" into its parts. */
export function splitModelString(model: string): { provider: string; modelId: string } {
  const colon = model.indexOf(':');
  return { provider: model.slice(0, colon), modelId: model.slice(colon + 1) };
}

/** The context window used for budgets: the config's override, else the built-in table. */
export function contextWindowOf(config: Pick<AgentConfig, 'model' | 'context_window'>): number | null {
  return config.context_window ?? knownContextWindow(config.model);
}

/**
 * Why a run of these agents (the run's agent and those it may hand off to) cannot start with this
 * resource id: a malformed one, or none while an agent has `memory: true` (its memory belongs to
 * a resource). Empty when it can. Pure; the client and `runAgent` refuse the run with these.
 */
export function resourceIdProblems(configs: ReadonlyArray<Pick<AgentConfig, 'name' | 'memory'>>, resourceId: string | undefined): string[] {
  if (resourceId !== undefined) {
    const problem = resourceIdProblem(resourceId);
    return problem ? [`resourceId: ${problem}`] : [];
  }
  return configs
    .filter((config) => config.memory)
    .map(
      (config) =>
        `resourceId: agent '${config.name}' has memory: true, so its runs need a resource id whose memory they use (startRun({ resourceId: 'user:42' }), run --resource user:42)`,
    );
}
