import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { SkillRegistry } from '../../../src/skills/skill-registry';
import { DictToolResolver } from '../../../src/skills/tool-resolver';
import { skillMarkdown, tempSkillRoot, writeSkill } from '../../support/skill-files';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

describe('skill registry', () => {
  it('loads all sources; on a name clash the source registered first wins, with a warning', async () => {
    const first = tempSkillRoot();
    const second = tempSkillRoot();
    roots.push(first, second);
    writeSkill(first, 'shared', skillMarkdown('shared', 'From the first source'));
    writeSkill(second, 'shared', skillMarkdown('shared', 'From the second source'));
    writeSkill(second, 'only-here', skillMarkdown('only-here', 'Second only'));
    writeSkill(second, 'broken', '---\nname: broken\n---\n');
    const registry = new SkillRegistry({ resolver: new DictToolResolver({ shared: 'search' }) }).registerSource(first).registerSource(second);
    const loaded = await registry.loadAll();
    expect(loaded.skills.map((skill) => [skill.name, skill.description, skill.tools])).toEqual([
      ['shared', 'From the first source', ['search']],
      ['only-here', 'Second only', []],
    ]);
    expect(loaded.warnings).toEqual([expect.stringContaining(`the one from ${first} (registered first) is used`)]);
    expect(loaded.errors.map((error) => error.message)).toEqual([expect.stringContaining('broken/SKILL.md: description')]);
  });
});
