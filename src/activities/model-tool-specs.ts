import type { ToolSpec } from '../protocol/messages';
import { SPAWN_PARALLEL_TOOL } from '../protocol/wire-names';
import { spawnParallelSpecWithAgents } from '../tools/subagent-tools';
import type { ToolRegistry } from '../tools/tool-registry';

/**
 * The tool schemas the model sees: the worker's tools named in `toolNames`, then the `extra` specs
 * the workflow adds (handoff tools, MCP tools), `spawn_subagents` with the agents its jobs may
 * name (`subagents`, the config's) when there are any, each deep-copied with every injected field merged
 * in as an optional string property (seed 001: every exposed tool). A tool's own schema object is
 * never mutated; a field the tool already has keeps the tool's definition (the model step refuses
 * such a config: see `refuseInvalidConfig`).
 */
export function modelToolSpecs(
  tools: ToolRegistry,
  toolNames: readonly string[],
  injectedToolArgs: Record<string, string>,
  extra: readonly ToolSpec[] = [],
  subagents: readonly string[] = [],
): ToolSpec[] {
  const injected = Object.entries(injectedToolArgs);
  const own = tools
    .specs(toolNames)
    .map((spec) => (spec.name === SPAWN_PARALLEL_TOOL && subagents.length > 0 ? spawnParallelSpecWithAgents(subagents) : spec));
  return [...own, ...extra].map((spec) => {
    if (injected.length === 0) return spec;
    const parameters = structuredClone(spec.parameters);
    const properties = { ...((parameters.properties as Record<string, unknown> | undefined) ?? {}) };
    for (const [name, description] of injected) {
      if (!(name in properties)) properties[name] = { type: 'string', description };
    }
    return { ...spec, parameters: { ...parameters, type: 'object', properties } };
  });
}

/** The longest tool description an approval request carries (a description is meant to be read at a glance). */
const DESCRIPTION_LIMIT = 2_000;

/**
 * The description of each tool `calls` names, from the specs the model saw (`ModelStepResult.toolDescriptions`):
 * tool properties live on the worker, and a gated call's approver should read what the tool does.
 * Undefined when no called tool has one.
 */
export function calledToolDescriptions(specs: readonly ToolSpec[], calls: ReadonlyArray<{ name: string }>): Record<string, string> | undefined {
  const found: Record<string, string> = {};
  for (const call of calls) {
    const description = specs.find((spec) => spec.name === call.name)?.description?.trim();
    if (description) found[call.name] = description.length > DESCRIPTION_LIMIT ? `${description.slice(0, DESCRIPTION_LIMIT)}…` : description;
  }
  return Object.keys(found).length > 0 ? found : undefined;
}
