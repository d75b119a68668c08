import type { SkillSnapshot } from '../protocol/skill-types';
import { readGitSkillSource } from '../skills/git-checkout';
import { isGitSource, readSkillFolder } from '../skills/skill-source';
import { AllowedToolsResolver, type ToolResolver } from '../skills/tool-resolver';

export interface SkillDependencies {
  /** Maps skills to tool names; must match the watcher process's resolver. Default: `allowed-tools`. */
  skillResolver?: ToolResolver;
  /** Where workers clone git skill sources (the plugin's option, or the worker's environment). */
  skillCacheDir: string;
}

/**
 * Reads whole skill sources for a run: at its start, and when it saw a gap in the watcher's
 * batches. Folder sources are read where the worker runs (the watcher process and the workers
 * must see the same folders).
 */
export function createSkillActivities(dependencies: SkillDependencies) {
  const resolver = dependencies.skillResolver ?? new AllowedToolsResolver();
  const cacheDir = dependencies.skillCacheDir;
  return {
    async loadSkillSources(sources: string[]): Promise<SkillSnapshot[]> {
      const snapshots: SkillSnapshot[] = [];
      for (const source of sources) {
        if (!isGitSource(source)) {
          snapshots.push(readSkillFolder(source, source, resolver));
          continue;
        }
        // The previous checkout (if any) still serves; the run sees a failed sync as an event.
        snapshots.push(await readGitSkillSource(source, cacheDir, resolver));
      }
      return snapshots;
    },
  };
}
