import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parseSkillFile } from '../../../src/skills/skill-file';
import { readSkillFolder, skillSetHash } from '../../../src/skills/skill-source';
import { DictToolResolver, FirstMatchResolver, AllowedToolsResolver } from '../../../src/skills/tool-resolver';
import { diffSkills } from '../../../src/skills/skill-diff';
import { buildSkillInstructions } from '../../../src/workflows/rules/skill-instructions';
import { RunSkills } from '../../../src/workflows/loop/run-skills';
import { skillMarkdown, tempSkillRoot, writeSkill } from '../../support/skill-files';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function root(): string {
  const folder = tempSkillRoot();
  roots.push(folder);
  return folder;
}

describe('skill files', () => {
  it('parses the Agent Skills front matter and takes usage from the body', () => {
    const result = parseSkillFile(
      '/s/deploy/SKILL.md',
      '---\nname: deploy\ndescription: Deploys services.\nlicense: MIT\nallowed-tools: deploy_service read_logs\nmetadata:\n  owner: ops\n---\n\n# Deploy\nRun the deploy tool.\n',
      '/s',
    );
    expect(result).toMatchObject({
      ok: true,
      skill: {
        name: 'deploy',
        description: 'Deploys services.',
        license: 'MIT',
        allowedTools: ['deploy_service', 'read_logs'],
        metadata: { owner: 'ops' },
        usage: '# Deploy\nRun the deploy tool.',
      },
    });
  });

  it.each([
    ['an upper-case name', '---\nname: Deploy\ndescription: x\n---\n', 'name: must be lowercase'],
    ['a missing description', '---\nname: deploy\n---\n', 'description:'],
    ['an empty description', '---\nname: deploy\ndescription: ""\n---\n', 'description:'],
    ['a description over 1024 characters', `---\nname: deploy\ndescription: ${'x'.repeat(1025)}\n---\n`, 'description:'],
    ['a name other than the folder', '---\nname: other\ndescription: x\n---\n', "name: must equal the folder name 'deploy'"],
    ['invalid YAML', '---\nname: [unclosed\n---\n', 'front matter is not valid YAML'],
    ['front matter that is never closed', '---\nname: deploy\ndescription: Deploys.\n\n# Deploy\nRun it.\n', 'the front matter is never closed'],
    ['a file without front matter', '# Deploy\nRun the deploy tool.\n', "no front matter (the first line is not '---')"],
    ['an empty file', '\n\n', 'the file is empty'],
  ])('refuses %s, naming the file and the field', (_label, text, message) => {
    const result = parseSkillFile('/s/deploy/SKILL.md', text, '/s');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.file).toBe('/s/deploy/SKILL.md');
      expect(result.error.message).toContain('/s/deploy/SKILL.md: ');
      expect(result.error.message).toContain(message);
    }
  });

  it('accepts front matter with Windows line ends and a byte-order mark', () => {
    const result = parseSkillFile('/s/deploy/SKILL.md', '\uFEFF---\r\nname: deploy\r\ndescription: Deploys.\r\n---\r\nBody\r\n', '/s');
    expect(result).toMatchObject({ ok: true, skill: { name: 'deploy', usage: 'Body' } });
  });

  it('reads a folder: SKILL.md and skill.md, a malformed file reported without losing the others', () => {
    const folder = root();
    writeSkill(folder, 'alpha', skillMarkdown('alpha', 'First', ['echo']));
    writeSkill(folder, 'beta', skillMarkdown('beta', 'Second'), 'skill.md');
    writeSkill(folder, 'broken', '---\nname: broken\n---\n');
    const snapshot = readSkillFolder(folder, folder);
    expect(snapshot.skills.map((skill) => [skill.name, skill.tools])).toEqual([
      ['alpha', ['echo']],
      ['beta', []],
    ]);
    expect(snapshot.errors.map((error) => path.basename(path.dirname(error.file)))).toEqual(['broken']);
  });

  it('resolves tools with a dictionary first, then allowed-tools', () => {
    const resolver = new FirstMatchResolver([new DictToolResolver({ alpha: ['search', 'fetch'], beta: 'sum' }), new AllowedToolsResolver()]);
    const skill = { name: 'alpha', description: '', usage: '', allowedTools: ['echo'], source: '', file: '', contentHash: '' };
    expect(resolver.resolve(skill)).toEqual(['search', 'fetch']);
    expect(resolver.resolve({ ...skill, name: 'beta' })).toEqual(['sum']);
    expect(resolver.resolve({ ...skill, name: 'gamma' })).toEqual(['echo']);
  });

  it('diffs skill sets and hashes them by content', () => {
    const make = (name: string, hash: string) => ({
      name,
      description: '',
      usage: '',
      allowedTools: [],
      tools: [],
      source: 's',
      file: `/s/${name}/SKILL.md`,
      contentHash: hash,
    });
    expect(diffSkills([make('a', '1'), make('b', '1')], [make('a', '2'), make('c', '1')]).map((change) => [change.kind, change.skillName])).toEqual([
      ['modified', 'a'],
      ['added', 'c'],
      ['removed', 'b'],
    ]);
    expect(skillSetHash([make('a', '1'), make('b', '1')])).toBe(skillSetHash([make('b', '1'), make('a', '1')]));
    expect(skillSetHash([make('a', '1')])).not.toBe(skillSetHash([make('a', '2')]));
  });

  it('rebuilds instructions from the active skills', () => {
    const text = buildSkillInstructions('skill-list', [
      {
        name: 'deploy',
        description: 'Deploys.',
        usage: '\nRun deploy_service.\nMore.',
        allowedTools: [],
        tools: ['deploy_service'],
        source: '',
        file: '',
        contentHash: '',
      },
    ]);
    expect(text).toBe('You have these skills:\n- deploy: Deploys.\n  Run deploy_service.\n  Tools: deploy_service');
    expect(buildSkillInstructions('none', [])).toBe('');
  });
});

describe('a run applying skill batches', () => {
  const skill = (name: string, tools: string[]) => ({
    name,
    description: '',
    usage: '',
    allowedTools: tools,
    tools,
    source: 'a',
    file: `/a/${name}/SKILL.md`,
    contentHash: name,
  });

  it('applies only newer batches that start from its skill set, and reports gaps', () => {
    const run = new RunSkills(['a', 'b'], null);
    run.load({ source: 'a', hash: 'h0', skills: [], errors: [] }, 0);
    expect(
      run.offer({
        source: 'a',
        version: 1,
        previousHash: 'h0',
        hash: 'h1',
        changes: [{ kind: 'added', skillName: 'x', skill: skill('x', ['echo']), source: 'a' }],
        errors: [],
      }),
    ).toBe('applied');
    expect(run.tools()).toEqual(['echo']);
    expect(run.offer({ source: 'a', version: 1, previousHash: 'h0', hash: 'h1', changes: [], errors: [] })).toBe('stale');
    expect(run.offer({ source: 'a', version: 3, previousHash: 'h2', hash: 'h3', changes: [], errors: [] })).toBe('gap');
    expect(run.offer({ source: 'zzz', version: 9, previousHash: '', hash: '', changes: [], errors: [] })).toBe('unbound');
  });

  it('lets the source listed first win a name clash, and selects skills by name', () => {
    const run = new RunSkills(['a', 'b'], null);
    run.load({ source: 'b', hash: 'hb', skills: [{ ...skill('x', ['add']), source: 'b' }], errors: [] }, 0);
    run.load({ source: 'a', hash: 'ha', skills: [skill('x', ['echo']), skill('y', ['noop'])], errors: [] }, 0);
    expect(run.active().map((entry) => [entry.name, entry.source])).toEqual([
      ['x', 'a'],
      ['y', 'a'],
    ]);
    expect(run.clashes()).toEqual([{ name: 'x', winner: 'a', hidden: 'b' }]);
    const selective = new RunSkills(['a'], ['y']);
    selective.load({ source: 'a', hash: 'ha', skills: [skill('x', ['echo']), skill('y', ['noop'])], errors: [] }, 0);
    expect(selective.tools()).toEqual(['noop']);
  });
});
