// Agents defined as a folder of YAML or JSON files, one agent a file: what the `worker --agents` option and AgentPlugin's `agentsFolder` read.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { agentConfigFromDocument } from '../config/load-config';
import { AgentDefinitionError } from './agent-definition-error';
import { definitionFrom, type AgentDefinition } from './define-agent';

/** The files an agents folder holds definitions in; others (a README, say) are left alone. */
const DEFINITION_FILE = /\.(ya?ml|json)$/i;

/**
 * Reads every agent definition in `folder`: each file is an agent config (as `run --config` takes)
 * with two optional fields of the definition beside it, `label` and `overridable`. Relative
 * scripted-model files and skill folders are taken from the file's folder.
 * @throws AgentDefinitionError naming the file (or the folder) and every invalid field.
 * @example
 * // agents/support.yaml:
 * //   name: support
 * //   model: openai:gpt-4o-mini
 * //   instructions: Help with orders.
 * //   tools: [lookup_order]
 * //   label: release-42
 * //   overridable: [model]
 * const definitions = loadAgentFolder('agents');
 */
export function loadAgentFolder(folder: string): AgentDefinition[] {
  let names: string[];
  try {
    if (!statSync(folder).isDirectory()) throw new Error('not a folder');
    names = readdirSync(folder).filter((name) => DEFINITION_FILE.test(name));
  } catch (error) {
    throw new AgentDefinitionError(folder, [`agents folder: cannot read it (${(error as Error).message})`]);
  }
  if (names.length === 0) throw new AgentDefinitionError(folder, ['agents folder: holds no .yaml, .yml or .json file']);
  return names.sort().map((name) => definitionFromFile(path.join(folder, name)));
}

function definitionFromFile(file: string): AgentDefinition {
  let document: unknown;
  try {
    document = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AgentDefinitionError(file, [`(file): not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`]);
  }
  const { label, overridable, ...config } = isMapping(document) ? document : { label: undefined, overridable: undefined };
  return definitionFrom(file, { label: label as string | undefined, overridable: overridable as AgentDefinition['overridable'] | undefined }, () =>
    agentConfigFromDocument(isMapping(document) ? config : document, file),
  );
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
