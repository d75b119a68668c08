import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { AgentConfigError } from '../shared/errors';
import { parseAgentConfig, type AgentConfig } from '../shared/agent-config';
import { withSkillSourceKeys } from '../skills/skill-source';

/**
 * Reads an agent config file (YAML, or JSON, which YAML also reads) and validates it, with
 * `overrides` (for example `--model` on the command line) applied before validation.
 * @throws AgentConfigError naming the file and every invalid field.
 */
export function loadAgentConfigFile(file: string, overrides: Partial<Pick<AgentConfig, 'model'>> = {}): AgentConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AgentConfigError(`Cannot read agent config ${file}: ${(error as Error).message}`, [(error as Error).message]);
  }
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const config = parseAgentConfig(raw && typeof raw === 'object' ? { ...raw, ...defined } : raw, file);
  // Relative skill folders are relative to the config file.
  return withSkillSourceKeys(config, path.dirname(path.resolve(file)));
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
 * are resolved from. A file that is not a valid config is an error naming it.
 */
export function loadAgentDirectory(folder: string): Record<string, AgentConfig> {
  const agents: Record<string, AgentConfig> = {};
  for (const file of readdirSync(folder).filter((name) => /\.(ya?ml|json)$/i.test(name)).sort()) {
    const full = path.join(folder, file);
    const raw = parseYaml(readFileSync(full, 'utf8')) as { replies?: unknown } | null;
    if (!raw || typeof raw !== 'object' || 'replies' in raw) continue; // scripted-model scripts live beside configs
    const config = loadAgentConfigFile(full);
    agents[config.name] = config;
  }
  return agents;
}
