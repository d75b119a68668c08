import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { AgentConfigError } from '../protocol/errors';
import { parseAgentConfig, type AgentConfig, type AgentConfigInput } from './agent-config';
import { withSkillSourceKeys } from '../skills/skill-source';

/**
 * Reads an agent config file (YAML, or JSON, which YAML also reads) and validates it, with
 * `overrides` (for example `--model` on the command line) applied before validation. Relative
 * `scripted:<file>` models and skill folders in the file are made absolute against the file's
 * folder, so the config works from any working directory.
 * @throws AgentConfigError naming the file and every invalid field (also when it cannot be read).
 * @example
 * import { AgentClient, loadAgentConfigFile } from 'durable-agents';
 *
 * const config = loadAgentConfigFile('agents/support.yaml', { model: 'openai:gpt-4o-mini' });
 * const agents = await AgentClient.connect();
 * const run = await agents.startRun({ config, task: 'Where is order 42?' });
 */
export function loadAgentConfigFile(file: string, overrides: Partial<Pick<AgentConfig, 'model'>> = {}): AgentConfig {
  const raw = readConfigFile(file);
  // A --model given on the command line is relative to the working directory.
  const defined = Object.fromEntries(
    Object.entries(overrides)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, commandLineModel(value)]),
  );
  return agentConfigFromDocument(raw, file, defined);
}

/**
 * An agent config from a parsed file `document` (a mapping, else reported as what it is), with
 * `overrides` applied: scripted-model files and skill folders in it are made absolute against the
 * file's folder, then it is validated (the output type compiled too).
 * @throws AgentConfigError naming `file` and every invalid field.
 */
export function agentConfigFromDocument(document: unknown, file: string, overrides: Partial<AgentConfigInput> = {}): AgentConfig {
  const folder = path.dirname(path.resolve(file));
  const isMapping = document !== null && typeof document === 'object' && !Array.isArray(document);
  const config = parseAgentConfig(isMapping ? { ...withScriptPathsFrom(document as object, folder), ...overrides } : document, file);
  const schemaProblem = outputTypeProblem(config.output_type);
  if (schemaProblem) throw new AgentConfigError(`Invalid agent config in ${file}:\n  ${schemaProblem}`, [schemaProblem]);
  return withSkillSourceKeys(config, folder);
}

/**
 * A config file's YAML (JSON is YAML too), parsed.
 * @throws AgentConfigError when the file cannot be read, or is not valid YAML: then the message
 * starts with `<file>:<line>:<column>` and says so before the parser's own words.
 */
function readConfigFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AgentConfigError(`Cannot read agent config ${file}: ${(error as Error).message}`, [(error as Error).message]);
  }
  try {
    return parseYaml(text);
  } catch (error) {
    const { linePos } = error as { linePos?: Array<{ line: number; col: number }> };
    const at = linePos?.[0] ? `:${linePos[0].line}:${linePos[0].col}` : '';
    // The parser's first line says what it met; the rest is a drawing of the line, which the position replaces.
    const detail = ((error as Error).message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    const problem = `${file}${at}: the file is not valid YAML (nor JSON): ${detail}`;
    throw new AgentConfigError(`Invalid agent config ${file}:\n  ${problem}`, [problem]);
  }
}

/**
 * Why a config's `output_type` is not a JSON Schema the worker can check answers against (it is
 * compiled with Ajv, with the worker's options), or null when it is fine or absent. Before this
 * check, an invalid schema failed the run at its first answer.
 * @example
 * const problem = outputTypeProblem({ type: 'objekt' }); // "output_type: is not a valid JSON Schema: ..."
 */
export function outputTypeProblem(schema: AgentConfig['output_type']): string | null {
  if (schema === null) return null;
  const { Ajv } = require('ajv') as typeof import('ajv');
  try {
    new Ajv({ allErrors: true, strict: false }).compile(schema);
    return null;
  } catch (error) {
    return `output_type: is not a valid JSON Schema: ${(error as Error).message}`;
  }
}

/**
 * A model given on the command line (`--model`): a relative `scripted:<file>` becomes absolute
 * against the working directory, as the user typed it there; other models are returned unchanged.
 * @example
 * commandLineModel('scripted:scripts/refund.yaml'); // 'scripted:/home/me/project/scripts/refund.yaml'
 */
export function commandLineModel(model: string): string {
  return scriptPathFrom(model, process.cwd());
}

/**
 * `scripted:<file>` names a script file (YAML or JSON); a relative one becomes absolute against
 * `folder`, so the config works from any working directory. Script names without a file
 * extension (registered in the worker) stay as they are.
 */
function scriptPathFrom(model: string, folder: string): string {
  const match = /^scripted:(.+\.(?:ya?ml|json))$/i.exec(model);
  return match && !path.isAbsolute(match[1]!) ? `scripted:${path.join(folder, match[1]!)}` : model;
}

function withScriptPathsFrom(raw: object, folder: string): object {
  const fields = raw as { model?: unknown; planning_model?: unknown };
  return {
    ...raw,
    ...(typeof fields.model === 'string' ? { model: scriptPathFrom(fields.model, folder) } : {}),
    ...(typeof fields.planning_model === 'string' ? { planning_model: scriptPathFrom(fields.planning_model, folder) } : {}),
  };
}

/** Serialises a config for a file; `parseAgentConfig(parse(serialise(c)))` equals `c`. */
export function serializeAgentConfig(config: AgentConfig, format: 'yaml' | 'json'): string {
  return format === 'json' ? `${JSON.stringify(config, null, 2)}\n` : stringifyYaml(config);
}

export function formatForFile(file: string): 'yaml' | 'json' {
  return path.extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

/**
 * Every agent config in a folder (*.yaml, *.yml, *.json), by agent name: the registry handoffs
 * are resolved from. Scripted-model scripts beside the configs (files with `replies`) are skipped.
 * @throws AgentConfigError naming the first file that is not a valid config, or two files that
 * define agents of the same name, or a file that is not valid YAML (with its line and column).
 * @example
 * import { AgentClient, loadAgentDirectory } from 'durable-agents';
 *
 * const agents = loadAgentDirectory('agents'); // { triage: ..., billing: ..., ... }
 * const client = await AgentClient.connect();
 * // triage's `handoffs` (and theirs) are looked up in `agents`.
 * const run = await client.startRun({ config: agents.triage!, agents, task: 'I was charged twice' });
 */
export function loadAgentDirectory(folder: string): Record<string, AgentConfig> {
  const agents: Record<string, AgentConfig> = {};
  const files = new Map<string, string>();
  for (const file of readdirSync(folder)
    .filter((name) => /\.(ya?ml|json)$/i.test(name))
    .sort()) {
    const full = path.join(folder, file);
    const raw = readConfigFile(full) as { replies?: unknown } | null;
    if (!raw || typeof raw !== 'object' || 'replies' in raw) continue; // scripted-model scripts live beside configs
    const config = loadAgentConfigFile(full);
    // A handoff names its target by agent name: two files of one name would make it ambiguous.
    const earlier = files.get(config.name);
    if (earlier !== undefined) {
      const problem = `name: Duplicate agent name '${config.name}' in ${earlier} and ${full}: a handoff to it would be ambiguous`;
      throw new AgentConfigError(`Invalid agent configs in ${folder}:\n  ${problem}`, [problem]);
    }
    files.set(config.name, full);
    agents[config.name] = config;
  }
  return agents;
}
