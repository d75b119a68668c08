import { DuplicateToolError } from '../protocol/errors';
import type { ToolSpec } from '../protocol/messages';
import type { Tool } from './define-tool';

/** The tools a worker can run, by name. A name registered twice is an error naming the tool. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): this {
    if (this.tools.has(tool.name)) {
      throw new DuplicateToolError(`Duplicate tool name '${tool.name}' in the worker's tool registry`);
    }
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Specs of the named tools that exist, in the given order; unknown names are skipped. */
  specs(names: readonly string[]): ToolSpec[] {
    return names.flatMap((name) => {
      const tool = this.tools.get(name);
      return tool ? [tool.spec()] : [];
    });
  }
}
