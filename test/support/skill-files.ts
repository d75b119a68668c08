import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Writes skill folders for the tests. */
export function skillMarkdown(name: string, description: string, tools: string[] = [], usage = `Use ${name} well.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n${tools.length ? `allowed-tools: ${tools.join(' ')}\n` : ''}---\n\n${usage}\n`;
}

export function writeSkill(root: string, name: string, content: string, fileName = 'SKILL.md'): string {
  const folder = path.join(root, name);
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, fileName);
  writeFileSync(file, content);
  return file;
}

export function removeSkill(root: string, name: string): void {
  rmSync(path.join(root, name), { recursive: true, force: true });
}

export function tempSkillRoot(prefix = 'skills-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}
