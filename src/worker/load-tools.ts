import path from 'node:path';
import { demoTools } from '../tools/demo-tools';
import type { Tool } from '../tools/define-tool';

/**
 * The tools a worker process registers: the demo tools, plus those of a module the user names
 * (`--tools ./my-tools.ts`, or `AGENT_TOOLS_MODULE`) exporting `tools: Tool[]` or a default array.
 */
export function loadTools(modulePath = process.env.AGENT_TOOLS_MODULE): Tool[] {
  if (!modulePath) return [...demoTools];
  const loaded = require(path.resolve(modulePath)) as { tools?: Tool[]; default?: Tool[] };
  const tools = loaded.tools ?? loaded.default;
  if (!Array.isArray(tools)) throw new Error(`${modulePath} must export 'tools' (an array of tools made with defineTool)`);
  return [...demoTools, ...tools];
}
