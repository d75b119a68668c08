import type { ToolRegistry } from '../tools/tool-registry';

/** The tool names this worker has (its registry, built-ins included): what a config may name. */
export function createListWorkerTools(dependencies: { tools: ToolRegistry }) {
  return async function listWorkerTools(): Promise<string[]> {
    return dependencies.tools.names();
  };
}
