import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SkillSnapshot } from '../../src/protocol/skill-types';
import type { SkillWatcher, WatcherBatch } from '../../src/skills/skill-watcher';

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

/**
 * Starts a watcher and collects its batches; `stop` ends it and waits for the iterator to finish.
 */
export async function collectBatches(watcher: SkillWatcher): Promise<{ initial: SkillSnapshot; batches: WatcherBatch[]; stop: () => Promise<void> }> {
  const initial = await watcher.start();
  const batches: WatcherBatch[] = [];
  const consuming = (async () => {
    for await (const batch of watcher.watch()) batches.push(batch);
  })();
  return {
    initial,
    batches,
    stop: async () => {
      await watcher.stop();
      await consuming;
    },
  };
}
