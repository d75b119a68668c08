import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LocalFolderWatcher, RunNotifier, SkillSyncManager } from '../../src/skills';
import { skillMarkdown, tempSkillRoot, writeSkill } from '../support/skill-files';
import { createTestEnvironment, eventually, type TestEnvironment } from '../support/test-env';
import { createTestTools } from '../support/test-tools';

/**
 * A custom tool resolver (issue 41, item 12) on the real dev server: the worker's `skillResolver`
 * gives a run the tools of the skills it loads, the watcher process's manager (`toolResolver`)
 * those of the skills that arrive while it runs; the SKILL.md files list no `allowed-tools`.
 */

const testTools = createTestTools();
const toolMap = { greeter: ['echo', 'add'], counter: 'noop' };
let env: TestEnvironment;
let root: string;
let manager: SkillSyncManager;

beforeAll(async () => {
  root = tempSkillRoot();
  writeSkill(root, 'greeter', skillMarkdown('greeter', 'Greets people.'));
  env = await createTestEnvironment({
    tools: testTools.tools,
    skillResolver: toolMap,
    scripts: {
      resolved: {
        replies: [
          { toolCalls: [{ name: 'gate', args: {} }], expect: { toolsInclude: ['echo', 'add'], toolsExclude: ['noop'] } },
          { toolCalls: [{ name: 'noop', args: {} }], expect: { toolsInclude: ['echo', 'add', 'noop'], systemIncludes: '- counter: Counts.' } },
          { text: 'resolved' },
        ],
      },
    },
  });
  manager = new SkillSyncManager({ toolResolver: toolMap });
  manager.addWatcher(new LocalFolderWatcher(root, { debounceMs: 100 }));
  const notifier = new RunNotifier(env.client, { settleMs: 1_500 });
  manager.onBatch(async (batch) => void (await notifier.notify(batch)));
  await manager.start();
});

afterAll(async () => {
  await manager?.[Symbol.asyncDispose]();
  await env?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a custom skill tool resolver', () => {
  it('gives a run the tools the resolver maps its skills to, at its start and for a skill added while it runs', async () => {
    testTools.gateControl.reset();
    const run = await env.agents.startRun({
      config: { name: 'resolved', model: 'scripted:resolved', tools: ['gate'], skill_sources: [root] },
      task: 'Use your skills',
    });
    await testTools.gateControl.reached();
    expect((await run.status()).activeTools).toEqual(expect.arrayContaining(['gate', 'echo', 'add']));
    writeSkill(root, 'counter', skillMarkdown('counter', 'Counts.'));
    await eventually(async () => (await run.status()).activeTools.includes('noop'), 60_000);
    testTools.gateControl.open();
    expect((await run.result()).output).toBe('resolved');
    expect(manager.snapshot(root).skills.map((skill) => [skill.name, skill.tools])).toEqual([
      ['counter', ['noop']],
      ['greeter', ['echo', 'add']],
    ]);
  }, 120_000);
});
