/**
 * Pure helpers over a parsed agent config. Deliberately free of zod: workflow code imports this
 * module, and every module a workflow imports is initialised again for each workflow the worker
 * starts or replays (building the config schemas there cost about 20 ms per workflow).
 */
import type { AgentConfig } from './agent-config';
import { knownContextWindow } from './context-windows';
import { resourceIdProblem } from '../protocol/resource-id';

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
