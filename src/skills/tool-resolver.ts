// Tool resolvers: which tools (by name) a skill gives an agent.
import type { SkillInfo } from '../protocol/skill-types';

/**
 * Maps a skill to the names of the tools it gives an agent. Skills are metadata; tools are code
 * registered in workers, so a resolver returns names, which workers resolve to tools. The watcher
 * process (`SkillSyncManager`'s `toolResolver`) and the workers (`AgentPlugin`'s `skillResolver`)
 * must use the same one. Keep it pure: it is called for every skill of every read of a source.
 * @example
 * import type { ToolResolver } from 'durable-agents/skills';
 *
 * // Every tool a skill's metadata names under `tools`, prefixed by the team that owns it.
 * const byMetadata: ToolResolver = {
 *   resolve: (skill) => (skill.metadata?.tools ?? '').split(',').filter(Boolean).map((tool) => `${skill.metadata?.team}_${tool.trim()}`),
 * };
 */
export interface ToolResolver {
  /** The tool names `skill` brings; an empty list for none. */
  resolve(skill: Omit<SkillInfo, 'tools'>): string[];
}

/**
 * The seeds' dictionary resolver: skill name → one tool name or several; a skill it does not list
 * brings no tool.
 * @example
 * new DictToolResolver({ deploy: ['deploy_service', 'read_logs'], search: 'web_search' });
 */
export class DictToolResolver implements ToolResolver {
  constructor(private readonly map: Record<string, string | string[]>) {}

  /** The tools listed for the skill's name, or none. */
  resolve(skill: Omit<SkillInfo, 'tools'>): string[] {
    const entry = Object.hasOwn(this.map, skill.name) ? this.map[skill.name] : undefined;
    if (entry === undefined) return [];
    return Array.isArray(entry) ? [...entry] : [entry];
  }
}

/**
 * The default resolver: the tools a SKILL.md lists in its `allowed-tools` front-matter field.
 * @example
 * new AllowedToolsResolver().resolve(skill); // 'allowed-tools: deploy_service read_logs' → ['deploy_service', 'read_logs']
 */
export class AllowedToolsResolver implements ToolResolver {
  /** The skill's `allowed-tools`. */
  resolve(skill: Omit<SkillInfo, 'tools'>): string[] {
    return [...skill.allowedTools];
  }
}

/**
 * Tries resolvers in order; the first that names any tool wins.
 * @example
 * new FirstMatchResolver([new DictToolResolver({ deploy: 'deploy_service' }), new AllowedToolsResolver()]);
 */
export class FirstMatchResolver implements ToolResolver {
  constructor(private readonly resolvers: ToolResolver[]) {}

  /** The tools of the first resolver that names any. */
  resolve(skill: Omit<SkillInfo, 'tools'>): string[] {
    for (const resolver of this.resolvers) {
      const tools = resolver.resolve(skill);
      if (tools.length > 0) return tools;
    }
    return [];
  }
}

/** A resolver as options take it: a `ToolResolver`, or a record for a `DictToolResolver`. */
export function toToolResolver(resolver: ToolResolver | Record<string, string | string[]>): ToolResolver {
  return typeof (resolver as ToolResolver).resolve === 'function'
    ? (resolver as ToolResolver)
    : new DictToolResolver(resolver as Record<string, string | string[]>);
}
