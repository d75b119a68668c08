import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ToolsModuleError } from '../protocol/errors';
import { demoTools } from '../tools/demo-tools';
import type { Tool } from '../tools/define-tool';
import type { AnyHook, InstructionsProvider } from '../hooks/define-hook';
import type { AgentDefinition } from '../agents/define-agent';

/**
 * `import()` kept as a real dynamic import in the compiled CommonJS (TypeScript would turn it into
 * `require`), so a tools module may be CommonJS (.js, .cjs) or ESM (.mjs, or .js in a
 * `"type": "module"` package).
 */
const dynamicImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

/** Imports a user's module by its absolute path (CommonJS or ESM), as the worker imports a tools module. */
export function importModuleFile(file: string): Promise<Record<string, unknown>> {
  return dynamicImport(pathToFileURL(file).href);
}

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;
const CANNOT_LOAD_TYPESCRIPT = new Set([
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX',
  'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING',
]);

export interface LoadToolsOptions {
  /** A module exporting `tools: Tool[]` (or a default array); also AGENT_TOOLS_MODULE. */
  modulePath?: string;
  /** Register the demo tools too (default true: `worker --no-demo-tools` leaves them out). */
  demoTools?: boolean;
}

/**
 * The tools a worker process registers: the demo tools (unless left out) and those of the module
 * the user names (`--tools ./tools.js`).
 * @throws ToolsModuleError naming the file: not found, TypeScript without a loader, throws while it
 * loads (or one of its imports is missing), no `tools` export.
 */
export async function loadTools(options: LoadToolsOptions = {}): Promise<Tool[]> {
  const modulePath = options.modulePath ?? process.env.AGENT_TOOLS_MODULE;
  const builtIn = options.demoTools === false ? [] : [...demoTools];
  if (!modulePath) return builtIn;
  const file = path.resolve(modulePath);
  const loaded = await importToolsModule(file);
  const candidate = loaded.tools ?? (loaded.default as { tools?: unknown } | undefined)?.tools ?? loaded.default;
  if (!Array.isArray(candidate) || !candidate.every(isTool)) {
    throw new ToolsModuleError(`${modulePath} must export 'tools' (or a default export): an array of tools made with defineTool`);
  }
  return [...builtIn, ...candidate];
}

/** The hooks and instructions providers of a worker process, from its tools module. */
export interface WorkerExtensions {
  hooks: AnyHook[];
  instructionsProviders: Record<string, InstructionsProvider>;
  /** Agents the module defines (`export const agents = [defineAgent(...)]`). */
  agents: AgentDefinition[];
}

/**
 * The lifecycle hooks (`export const hooks = [defineHook(...)]`) and instructions providers
 * (`export const instructionsProviders = { name: provider }`) the tools module exports, if any
 * (docs/hooks.md): `worker --tools ./tools.js` registers them with the tools.
 * @throws ToolsModuleError naming the file when an export is not what it should be.
 */
export async function loadWorkerExtensions(options: Pick<LoadToolsOptions, 'modulePath'> = {}): Promise<WorkerExtensions> {
  const modulePath = options.modulePath ?? process.env.AGENT_TOOLS_MODULE;
  if (!modulePath) return { hooks: [], instructionsProviders: {}, agents: [] };
  const imported = await importToolsModule(path.resolve(modulePath));
  // A CommonJS module (or TypeScript run as one) may show its exports on `default` only.
  const loaded = { ...(imported.default as Record<string, unknown> | undefined), ...imported };
  const hooks = loaded.hooks ?? [];
  if (!Array.isArray(hooks) || !hooks.every(isHook))
    throw new ToolsModuleError(`${modulePath}: 'hooks' must be an array of hooks made with defineHook`);
  const providers = loaded.instructionsProviders ?? {};
  if (typeof providers !== 'object' || providers === null || !Object.values(providers).every((provider) => typeof provider === 'function')) {
    throw new ToolsModuleError(`${modulePath}: 'instructionsProviders' must map names to functions that return instructions`);
  }
  const agents = loaded.agents ?? [];
  if (!Array.isArray(agents) || !agents.every(isAgentDefinition))
    throw new ToolsModuleError(`${modulePath}: 'agents' must be an array of agents made with defineAgent`);
  return { hooks, instructionsProviders: providers as Record<string, InstructionsProvider>, agents };
}

/** Whether `value` is what defineAgent makes (a module may hold a plain config by mistake). */
function isAgentDefinition(value: unknown): value is AgentDefinition {
  const candidate = value as Partial<AgentDefinition> | null;
  return typeof candidate?.name === 'string' && typeof candidate.version === 'string' && typeof candidate.config === 'object';
}

async function importToolsModule(file: string): Promise<Record<string, unknown>> {
  try {
    return await dynamicImport(pathToFileURL(file).href);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && (error as Error).message.includes(file)) throw new ToolsModuleError(`Tools module not found: ${file}`);
    if (TYPESCRIPT_FILE.test(file) && (CANNOT_LOAD_TYPESCRIPT.has(code ?? '') || error instanceof SyntaxError)) {
      throw new ToolsModuleError(
        `${file} is TypeScript, which this Node.js cannot load by itself. Compile it (tsc) and pass the .js file, ` +
          'or run the CLI under a TypeScript loader: node --import tsx ./node_modules/durable-agents/dist/cli/cli.js worker --tools <file>',
      );
    }
    // Anything else is the module's own failure (it threw, or one of its imports is missing): a
    // user error like the others, named by file, not a crash of the worker.
    throw new ToolsModuleError(`Tools module ${file} could not be loaded: ${describeLoadError(error, file)}`);
  }
}

/** "Error: DATABASE_URL is not set (file:///app/tools.mjs:3:9)": the error and where in the module it was thrown. */
function describeLoadError(error: unknown, file: string): string {
  if (!(error instanceof Error)) return String(error);
  const fileUrl = pathToFileURL(file).href;
  const frame = error.stack
    ?.split('\n')
    .map((line) => line.trim())
    .find((line) => line.startsWith('at ') && (line.includes(fileUrl) || line.includes(file)));
  const where = frame ? ` (${frame.replace(/^at (.* \()?/, '').replace(/\)$/, '')})` : '';
  return `${error.name}: ${error.message}${where}`;
}

function isHook(value: unknown): value is AnyHook {
  const hook = value as Partial<AnyHook> | null;
  return typeof hook?.name === 'string' && typeof hook.point === 'string' && typeof hook.run === 'function';
}

function isTool(value: unknown): value is Tool {
  const tool = value as Partial<Tool> | null;
  return typeof tool?.name === 'string' && typeof tool.execute === 'function' && typeof tool.spec === 'function';
}
