import type { SkillInfo } from '../protocol/skill-types';

/**
 * Maps a skill to the names of the tools it gives an agent. Skills are metadata; tools are code
 * registered in workers, so a resolver returns names, which workers resolve to tools.
 */
export interface ToolResolver {
  resolve(skill: Omit<SkillInfo, 'tools'>): string[];
}

/** The seeds' dictionary resolver: skill name → one tool or several. */
export class DictToolResolver implements ToolResolver {
  constructor(private readonly map: Record<string, string | string[]>) {}

  resolve(skill: Omit<SkillInfo, 'tools'>): string[] {
    const entry = this.map[skill.name];
    if (entry === undefined) return [];
    return Array.isArray(entry) ? [...entry] : [entry];
  }
}

/** The default: the tools a SKILL.md lists in `allowed-tools`. */
export class AllowedToolsResolver implements ToolResolver {
  resolve(skill: Omit<SkillInfo, 'tools'>): string[] {
    return [...skill.allowedTools];
  }
}

/** Tries resolvers in order; the first that names any tool wins. */
export class FirstMatchResolver implements ToolResolver {
  constructor(private readonly resolvers: ToolResolver[]) {}

  resolve(skill: Omit<SkillInfo, 'tools'>): string[] {
    for (const resolver of this.resolvers) {
      const tools = resolver.resolve(skill);
      if (tools.length > 0) return tools;
    }
    return [];
  }
}
