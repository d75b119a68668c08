import path from 'node:path';
import type { SkillFileError, SkillInfo } from '../protocol/skill-types';
import { checkoutFolder, syncCheckout } from './git-checkout';
import { isGitSource, readSkillFolder, skillSourceKey } from './skill-source';
import { AllowedToolsResolver, type ToolResolver } from './tool-resolver';

export interface LoadedSkills {
  skills: SkillInfo[];
  errors: SkillFileError[];
  /** Name clashes across sources: the source registered first wins. */
  warnings: string[];
}

/**
 * Skill sources (folders and git repositories) and a one-shot `loadAll()`, as the seeds'
 * SkillRegistry. Watchers keep skills current after that; this is the initial load.
 */
export class SkillRegistry {
  private readonly sources: string[] = [];

  constructor(private readonly options: { resolver?: ToolResolver; cacheDir?: string } = {}) {}

  registerSource(source: string): this {
    const key = skillSourceKey(source);
    if (!this.sources.includes(key)) this.sources.push(key);
    return this;
  }

  listSources(): string[] {
    return [...this.sources];
  }

  async loadAll(): Promise<LoadedSkills> {
    const resolver = this.options.resolver ?? new AllowedToolsResolver();
    const byName = new Map<string, SkillInfo>();
    const errors: SkillFileError[] = [];
    const warnings: string[] = [];
    for (const source of this.sources) {
      let folder = source;
      if (isGitSource(source)) {
        folder = checkoutFolder(this.options.cacheDir ?? path.join(process.cwd(), '.temporal-data', 'skill-cache', 'registry'), source);
        try {
          await syncCheckout(source, folder);
        } catch (error) {
          errors.push({ file: source, message: `${source}: ${error instanceof Error ? error.message : String(error)}` });
        }
      }
      const snapshot = readSkillFolder(folder, source, resolver);
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
