import type { SkillSnapshot } from '../shared/skill-types';
import { readSkillFolder } from '../skills/skill-source';
import { AllowedToolsResolver, type ToolResolver } from '../skills/tool-resolver';

export interface SkillDependencies {
  /** Maps skills to tool names; must match the watcher process's resolver. Default: `allowed-tools`. */
  skillResolver?: ToolResolver;
}

/**
 * Reads whole skill sources for a run: at its start, and when it saw a gap in the watcher's
 * batches. Folder sources are read where the worker runs (the watcher process and the workers
 * must see the same folders).
 */
export function createSkillActivities(dependencies: SkillDependencies) {
  const resolver = dependencies.skillResolver ?? new AllowedToolsResolver();
  return {
    async loadSkillSources(sources: string[]): Promise<SkillSnapshot[]> {
      return sources.map((source) => {
        if (/^[a-z]+:\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source)) {
          return { source, skills: [], hash: '', errors: [{ file: source, message: `${source}: git sources reach runs only through the watcher process (skills watch)` }] };
        }
        return readSkillFolder(source, source, resolver);
      });
    },
  };
}
