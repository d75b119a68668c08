import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SkillFileError, SkillInfo, SkillSnapshot } from '../protocol/skill-types';
import { isSkillFile, parseSkillFile } from './skill-file';
import { AllowedToolsResolver, type ToolResolver } from './tool-resolver';

/**
 * Reads all skills of one folder, recursively (a local source, or the checkout of a git source).
 * A malformed file is reported in `errors` and, when `previous` knows that skill, its previous
 * version is kept; within the folder the first file in path order wins a name clash.
 * @example
 * const { skills, errors, hash } = readSkillFolder('/srv/skills', '/srv/skills', new DictToolResolver({ deploy: 'deploy_service' }));
 */
export function readSkillFolder(
  folder: string,
  source: string,
  resolver: ToolResolver = new AllowedToolsResolver(),
  previous: SkillInfo[] = [],
): SkillSnapshot {
  const skills = new Map<string, SkillInfo>();
  const errors: SkillFileError[] = [];
  for (const file of findSkillFiles(folder)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // removed while we scanned
    }
    const parsed = parseSkillFile(file, text, source);
    if (!parsed.ok) {
      errors.push(parsed.error);
      const kept = previous.find((skill) => skill.file === file);
      if (kept && !skills.has(kept.name)) skills.set(kept.name, kept);
      continue;
    }
    if (skills.has(parsed.skill.name)) {
      errors.push({
        file,
        message: `${file}: name: skill '${parsed.skill.name}' is already defined in ${skills.get(parsed.skill.name)!.file}; the first one (in path order) is kept`,
      });
      continue;
    }
    skills.set(parsed.skill.name, { ...parsed.skill, tools: resolver.resolve(parsed.skill) });
  }
  const list = [...skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { source, skills: list, errors, hash: skillSetHash(list) };
}

/** Skill files below a folder, in a stable (sorted) order; none when the folder is missing. */
export function findSkillFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const found: string[] = [];
  const walk = (directory: string) => {
    let entries: string[];
    try {
      entries = readdirSync(directory).sort();
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry === '.git' || entry === 'node_modules') continue;
      const full = path.join(directory, entry);
      let isDirectory = false;
      try {
        isDirectory = statSync(full).isDirectory();
      } catch {
        continue;
      }
      if (isDirectory) walk(full);
      else if (isSkillFile(full)) found.push(full);
    }
  };
  walk(folder);
  return found;
}

/** A hash of a skill set (names and file contents): equal sets, equal hashes. */
export function skillSetHash(skills: SkillInfo[]): string {
  const lines = skills.map((skill) => `${skill.name}:${skill.contentHash}:${skill.tools.join(',')}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 32);
}

/** Whether a source is a git repository URL (else a local folder). */
export function isGitSource(source: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source) || source.endsWith('.git');
}

/** The key a source is known by in configs, signals and search attributes. */
export function skillSourceKey(source: string, baseDir = process.cwd()): string {
  if (/^(https?|ssh|git|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source)) return source.replace(/\/+$/, '');
  return path.resolve(baseDir, source);
}

/** The config with its skill sources as keys (absolute folders relative to `baseDir`, or URLs). */
export function withSkillSourceKeys<Config extends { skill_sources: string[] }>(config: Config, baseDir = process.cwd()): Config {
  return { ...config, skill_sources: config.skill_sources.map((source) => skillSourceKey(source, baseDir)) };
}
