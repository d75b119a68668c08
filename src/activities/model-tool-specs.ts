import type { ToolSpec } from '../protocol/messages';
import type { ToolRegistry } from '../tools/tool-registry';

/**
 * The tool schemas the model sees: the worker's tools named in `toolNames`, then the `extra` specs
 * the workflow adds (handoff tools, MCP tools), each deep-copied with every injected field merged
 * in as an optional string property (seed 001: every exposed tool). A tool's own schema object is
 * never mutated; a field the tool already has keeps the tool's definition (the model step refuses
 * such a config: see `refuseInvalidConfig`).
 */
export function modelToolSpecs(
  tools: ToolRegistry,
  toolNames: readonly string[],
  injectedToolArgs: Record<string, string>,
  extra: readonly ToolSpec[] = [],
): ToolSpec[] {
  const injected = Object.entries(injectedToolArgs);
  return [...tools.specs(toolNames), ...extra].map((spec) => {
    if (injected.length === 0) return spec;
    const parameters = structuredClone(spec.parameters);
    const properties = { ...((parameters.properties as Record<string, unknown> | undefined) ?? {}) };
    for (const [name, description] of injected) {
      if (!(name in properties)) properties[name] = { type: 'string', description };
    }
    return { ...spec, parameters: { ...parameters, type: 'object', properties } };
  });
}
