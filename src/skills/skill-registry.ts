import path from 'node:path';
import type { SkillFileError, SkillInfo } from '../protocol/skill-types';
import { readGitSkillSource } from './git-checkout';
import { isGitSource, readSkillFolder, skillSourceKey } from './skill-source';
import { AllowedToolsResolver, type ToolResolver } from './tool-resolver';

/** What `SkillRegistry.loadAll()` found: the skills, the files it could not read, and name clashes. */
export interface LoadedSkills {
  skills: SkillInfo[];
  errors: SkillFileError[];
  /** Name clashes across sources: the source registered first wins. */
  warnings: string[];
}

/**
 * Skill sources (folders and git repositories) and a one-shot `loadAll()`, as the seeds'
 * SkillRegistry. Watchers keep skills current after that; this is the initial load.
 * @example
 * import { SkillRegistry } from 'durable-agents/skills';
 *
 * const registry = new SkillRegistry({ cacheDir: '/var/cache/skills' })
 *   .registerSource('./skills')
 *   .registerSource('https://github.com/acme/shared-skills/tree/main/skills');
 * const { skills, errors, warnings } = await registry.loadAll();
 */
export class SkillRegistry {
  private readonly sources: string[] = [];

  constructor(private readonly options: { resolver?: ToolResolver; cacheDir?: string } = {}) {}

  /** Adds a folder (resolved against the working directory) or a git URL; once each. */
  registerSource(source: string): this {
    const key = skillSourceKey(source);
    if (!this.sources.includes(key)) this.sources.push(key);
    return this;
  }

  /** The sources, as keys (absolute folders, URLs), in the order they were registered. */
  listSources(): string[] {
    return [...this.sources];
  }

  /** Reads every source now (cloning or pulling git ones); the source registered first wins a name clash. */
  async loadAll(): Promise<LoadedSkills> {
    const resolver = this.options.resolver ?? new AllowedToolsResolver();
    const byName = new Map<string, SkillInfo>();
    const errors: SkillFileError[] = [];
    const warnings: string[] = [];
    for (const source of this.sources) {
      const snapshot = isGitSource(source)
        ? await readGitSkillSource(source, this.options.cacheDir ?? path.join(process.cwd(), '.temporal-data', 'skill-cache', 'registry'), resolver)
        : readSkillFolder(source, source, resolver);
      errors.push(...snapshot.errors);
      for (const skill of snapshot.skills) {
        const first = byName.get(skill.name);
        if (first) {
          warnings.push(
            `skill '${skill.name}' is defined in ${first.source} and in ${source}; the one from ${first.source} (registered first) is used`,
          );
          continue;
        }
        byName.set(skill.name, skill);
      }
    }
    return { skills: [...byName.values()], errors, warnings };
  }
}
