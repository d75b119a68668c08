import type { ToolSpec } from '../protocol/messages';
import type { ToolRegistry } from '../tools/tool-registry';

/**
 * The tool schemas the model sees: each tool's own schema, deep-copied, with every injected field
 * merged in as an optional string property. The tool's schema object is never mutated.
 */
export function modelToolSpecs(tools: ToolRegistry, toolNames: readonly string[], injectedToolArgs: Record<string, string>): ToolSpec[] {
  const injected = Object.entries(injectedToolArgs);
  return tools.specs(toolNames).map((spec) => {
    if (injected.length === 0) return spec;
    const parameters = structuredClone(spec.parameters);
    const properties = { ...((parameters.properties as Record<string, unknown> | undefined) ?? {}) };
    for (const [name, description] of injected) {
      if (!(name in properties)) properties[name] = { type: 'string', description };
    }
    return { ...spec, parameters: { ...parameters, type: 'object', properties } };
  });
}
