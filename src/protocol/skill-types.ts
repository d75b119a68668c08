/**
 * Skills as they travel in signals, activity results and workflow state: plain JSON. Pure types
 * and helpers, safe in the workflow sandbox.
 */

/** A skill: metadata from a SKILL.md plus the tool names it brings (resolved by the watcher/worker). */
export interface SkillInfo {
  name: string;
  description: string;
  /** The Markdown body of the file: how to use the skill. */
  usage: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** `allowed-tools` of the front matter, split. */
  allowedTools: string[];
  /** The tools this skill gives an agent (from the tool resolver). */
  tools: string[];
  /** The source folder or git URL it came from. */
  source: string;
  /** The file it was read from. */
  file: string;
  /** SHA-256 of the file's text. */
  contentHash: string;
}

/** What happened to a skill in a `SkillChange`. */
export type SkillChangeKind = 'added' | 'modified' | 'removed';

/** One skill added, modified or removed in a source, within a `SkillBatch`. */
export interface SkillChange {
  kind: SkillChangeKind;
  skillName: string;
  /** Null only for `removed`. */
  skill: SkillInfo | null;
  source: string;
}

/** A file that could not be read as a skill: the previous version of that skill stays. */
export interface SkillFileError {
  file: string;
  message: string;
}

/**
 * One settled batch of changes of one source, as the watcher process signals it to runs. A run
 * applies it when `previousHash` is the hash of the skills it has; otherwise it reloads.
 */
export interface SkillBatch {
  source: string;
  version: number;
  previousHash: string;
  hash: string;
  changes: SkillChange[];
  errors: SkillFileError[];
}

/** All skills of one source, with the hash of the set. */
export interface SkillSnapshot {
  source: string;
  hash: string;
  skills: SkillInfo[];
  errors: SkillFileError[];
}
