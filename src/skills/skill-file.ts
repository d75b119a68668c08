import { createHash } from 'node:crypto';
import path from 'node:path';
import matter from 'gray-matter';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { SkillFileError, SkillInfo } from '../protocol/skill-types';

/**
 * Reads one SKILL.md (or skill.md): YAML front matter in the public Agent Skills format plus a
 * Markdown body (the seeds' `usage`). gray-matter splits the file and the `yaml` package parses the
 * front matter; zod validates it. Errors name the file and the field.
 */
export const SKILL_FILE_NAMES = ['SKILL.md', 'skill.md'];

const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const frontMatterSchema = z.looseObject({
  name: z.string().min(1).max(64).regex(NAME_PATTERN, 'must be lowercase letters, digits and single hyphens (not at the start or end)'),
  description: z.string().min(1).max(1024),
  license: z.string().optional(),
  compatibility: z.string().max(500).optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  'allowed-tools': z.string().optional(),
});

export function isSkillFile(file: string): boolean {
  return SKILL_FILE_NAMES.includes(path.basename(file));
}

const FRONT_MATTER_SHAPE =
  "a SKILL.md starts with a line '---', then YAML fields (name, description, ...), then a line '---' before the Markdown body";

/**
 * gray-matter reads a file without front matter as one with empty fields, and front matter that is
 * never closed as valid (the whole body becomes fields): both are refused here, by what is wrong.
 */
function frontMatterDelimiterProblem(text: string): string | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines.every((line) => line.trim() === '')) return `the file is empty: ${FRONT_MATTER_SHAPE}`;
  if (lines[0]!.trimEnd() !== '---') return `no front matter (the first line is not '---'): ${FRONT_MATTER_SHAPE}`;
  if (!lines.slice(1).some((line) => line.trimEnd() === '---'))
    return `the front matter is never closed: add a line '---' after its last field (${FRONT_MATTER_SHAPE})`;
  return null;
}

export type SkillFileResult = { ok: true; skill: Omit<SkillInfo, 'tools'> } | { ok: false; error: SkillFileError };

/**
 * Parses one SKILL.md. Refused (an error naming the file, never a skill): no front matter, front
 * matter that is never closed, YAML that does not parse, invalid fields, a name other than the
 * folder's.
 */
export function parseSkillFile(file: string, text: string, source: string): SkillFileResult {
  const delimiterProblem = frontMatterDelimiterProblem(text);
  if (delimiterProblem) return { ok: false, error: { file, message: `${file}: ${delimiterProblem}` } };
  let parsed: matter.GrayMatterFile<string>;
  try {
    // A fresh options object each time: gray-matter caches by content only when options are absent.
    parsed = matter(text, { engines: { yaml: (input: string) => parseYaml(input) as object } });
  } catch (error) {
    return { ok: false, error: { file, message: `${file}: front matter is not valid YAML: ${(error as Error).message}` } };
  }
  const result = frontMatterSchema.safeParse(parsed.data);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'front matter'}: ${issue.message}`);
    return { ok: false, error: { file, message: `${file}: ${problems.join('; ')}` } };
  }
  const folderName = path.basename(path.dirname(file));
  if (result.data.name !== folderName) {
    return { ok: false, error: { file, message: `${file}: name: must equal the folder name '${folderName}' (it is '${result.data.name}')` } };
  }
  const data = result.data;
  return {
    ok: true,
    skill: {
      name: data.name,
      description: data.description,
      usage: parsed.content.trim(),
      ...(data.license !== undefined ? { license: data.license } : {}),
      ...(data.compatibility !== undefined ? { compatibility: data.compatibility } : {}),
      ...(data.metadata !== undefined ? { metadata: data.metadata } : {}),
      allowedTools: (data['allowed-tools'] ?? '').split(/\s+/).filter(Boolean),
      source,
      file,
      contentHash: createHash('sha256').update(text).digest('hex'),
    },
  };
}
