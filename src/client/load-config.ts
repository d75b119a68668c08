import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { AgentConfigError } from '../shared/errors';
import { parseAgentConfig, type AgentConfig } from '../shared/agent-config';

/**
 * Reads an agent config file (YAML, or JSON, which YAML also reads) and validates it.
 * @throws AgentConfigError naming the file and every invalid field.
 */
export function loadAgentConfigFile(file: string): AgentConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AgentConfigError(`Cannot read agent config ${file}: ${(error as Error).message}`, [(error as Error).message]);
  }
  return parseAgentConfig(raw, file);
}

/** Serialises a config for a file; `parseAgentConfig(parse(serialise(c)))` equals `c`. */
export function serializeAgentConfig(config: AgentConfig, format: 'yaml' | 'json'): string {
  return format === 'json' ? `${JSON.stringify(config, null, 2)}\n` : stringifyYaml(config);
}

export function formatForFile(file: string): 'yaml' | 'json' {
  return path.extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}
