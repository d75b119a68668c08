import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { RunHandle } from '../../src/client/agent-client';
import { AgentSkillSourcesAttribute } from '../../src/protocol/search-attributes';
import type { RunEvent } from '../../src/protocol/run-events';
import { eventsQuery } from '../../src/protocol/run-messages';
import { GitPollingWatcher } from '../../src/skills/git-polling-watcher';
import { LocalFolderWatcher } from '../../src/skills/local-folder-watcher';
import { RunNotifier } from '../../src/skills/run-notifier';
import { SkillSyncManager } from '../../src/skills/skill-sync-manager';
import { recordHistory } from '../support/history-recorder';
import { removeSkill, skillMarkdown, tempSkillRoot, writeSkill } from '../support/skill-files';
import { createTestEnvironment, eventually, type TestEnvironment } from '../support/test-env';
import { createTestTools } from '../support/test-tools';

const testTools = createTestTools();
let env: TestEnvironment;
let root: string;
let manager: SkillSyncManager;

beforeAll(async () => {
  root = tempSkillRoot();
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: {
      learner: {
        replies: [
          { toolCalls: [{ name: 'gate', args: {} }], expect: { toolsExclude: ['echo'] } },
          {
            toolCalls: [{ name: 'echo', args: { text: 'new skill' } }],
            expect: { toolsInclude: ['echo'], systemIncludes: '- greeter: Greets people.' },
          },
          { toolCalls: [{ name: 'gate', args: {} }] },
          { text: 'forgot it', expect: { toolsExclude: ['echo'] } },
        ],
      },
      converger: { replies: [{ toolCalls: [{ name: 'gate', args: {} }] }, { text: 'done' }] },
      clash: { replies: [{ text: 'one greeter', expect: { toolsInclude: ['echo'], toolsExclude: ['add'] } }] },
      mentor: {
        replies: [{ toolCalls: [{ name: 'spawn_self', args: { task: 'child-learns' } }] }, { text: 'delegated' }],
        variants: [
          {
            taskIncludes: 'child-learns',
            replies: [
              { toolCalls: [{ name: 'gate', args: {} }], expect: { toolsExclude: ['add'] } },
              { toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }], expect: { toolsInclude: ['add'], systemIncludes: '- adder: Adds numbers.' } },
              { text: 'child learned: {{tool:add}}' },
            ],
          },
        ],
      },
      gitLearner: {
        replies: [
          { toolCalls: [{ name: 'gate', args: {} }], expect: { toolsInclude: ['noop'], toolsExclude: ['add'] } },
          { text: 'learned from git', expect: { toolsInclude: ['noop', 'add'] } },
        ],
      },
    },
  });
  manager = new SkillSyncManager();
  manager.addWatcher(new LocalFolderWatcher(root, { debounceMs: 100 }));
  const notifier = new RunNotifier(env.client, { settleMs: 1_500 });
  manager.onBatch(async (batch) => void (await notifier.notify(batch)));
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
  await env?.close();
  rmSync(root, { recursive: true, force: true });
});

async function toolsOf(run: RunHandle): Promise<string[]> {
  return (await run.status()).activeTools;
}

describe('skills in running runs', () => {
  it('uses the skill of the source listed first when two sources share a name, and logs a skill-shadowed event', async () => {
    const first = tempSkillRoot();
    const second = tempSkillRoot();
    try {
      writeSkill(first, 'greeter', skillMarkdown('greeter', 'Greets people.', ['echo']));
      writeSkill(second, 'greeter', skillMarkdown('greeter', 'Greets with numbers.', ['add']));
      const run = await env.agents.startRun({ config: { name: 'clasher', model: 'scripted:clash', skill_sources: [first, second] }, task: 'Hi' });
      expect((await run.result()).output).toBe('one greeter');
      const events: RunEvent[] = [];
      for await (const event of run.events()) events.push(event);
      await recordHistory('skills-shadowed', run);
      expect(events.filter((event) => event.type === 'skill-shadowed')).toEqual([
        expect.objectContaining({ type: 'skill-shadowed', name: 'greeter', winner: first, hidden: second }),
      ]);
    } finally {
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
  });

  it('gains a tool from a new SKILL.md on its next step, then loses it after removal', async () => {
    testTools.gateControl.reset();
    const run = await env.agents.startRun({
      config: { name: 'learner', model: 'scripted:learner', tools: ['gate'], skill_sources: [root] },
      task: 'Learn',
    });
    await testTools.gateControl.reached();
    writeSkill(root, 'greeter', skillMarkdown('greeter', 'Greets people.', ['echo']));
    await eventually(async () => (await toolsOf(run)).includes('echo'));
    // A malformed edit keeps the previous version of the skill, and the run logs an event naming the file.
    const file = writeSkill(root, 'greeter', '---\nname: greeter\n---\nno description');
    await eventually(async () =>
      (await run.workflow.query(eventsQuery, 0, 1000)).events.some((event) => event.type === 'skill-error' && event.file === file),
    );
    expect(await toolsOf(run)).toContain('echo');
    // Release the waiting call, then arm the gate for the next one (synchronously, before step 3).
    testTools.gateControl.open();
    testTools.gateControl.reset();
    await testTools.gateControl.reached();
    removeSkill(root, 'greeter');
    await eventually(async () => !(await toolsOf(run)).includes('echo'));
    testTools.gateControl.open();
    const result = await run.result();
    expect(result.output).toBe('forgot it');
    expect(result.toolResults.map((toolResult) => toolResult.toolName)).toEqual(['gate', 'echo', 'gate']);
    const events: RunEvent[] = [];
    for await (const event of run.events()) events.push(event);
    const changes = events.filter((event) => event.type === 'skills-changed');
    expect(changes.map((event) => event.type === 'skills-changed' && [event.added, event.removed])).toEqual([
      [[], []],
      [['greeter'], []],
      [[], []],
      [[], ['greeter']],
    ]);
    expect(events.find((event) => event.type === 'skill-error')).toMatchObject({ message: expect.stringContaining('greeter/SKILL.md: description') });
    await recordHistory('skills-gain-and-lose', run);
  });

  it('reports a malformed skill file once, however many batches carry its error', async () => {
    testTools.gateControl.reset();
    const quiet = tempSkillRoot();
    try {
      const run = await env.agents.startRun({
        config: { name: 'converger', model: 'scripted:converger', tools: ['gate'], skill_sources: [quiet] },
        task: 'Wait',
      });
      await testTools.gateControl.reached();
      const { hash } = (await run.status()).skills[0]!;
      const error = { file: `${quiet}/broken/SKILL.md`, message: `${quiet}/broken/SKILL.md: description: required` };
      await run.workflow.signal('skillsChanged', { source: quiet, version: 1, previousHash: hash, hash, changes: [], errors: [error] });
      await run.workflow.signal('skillsChanged', { source: quiet, version: 2, previousHash: hash, hash, changes: [], errors: [error] });
      await eventually(async () => (await run.status()).skills[0]?.version === 2);
      testTools.gateControl.open();
      await run.result();
      const events: RunEvent[] = [];
      for await (const event of run.events()) events.push(event);
      expect(events.filter((event) => event.type === 'skill-error')).toEqual([expect.objectContaining({ file: error.file })]);
    } finally {
      rmSync(quiet, { recursive: true, force: true });
    }
  });

  it('converges every run to the latest skills, whenever it started', async () => {
    testTools.gateControl.reset();
    const start = () =>
      env.agents.startRun({ config: { name: 'converger', model: 'scripted:converger', tools: ['gate'], skill_sources: [root] }, task: 'Wait' });
    const runs: RunHandle[] = [await start()];
    writeSkill(root, 'one', skillMarkdown('one', 'One', ['echo']));
    runs.push(await start());
    await new Promise((resolve) => setTimeout(resolve, 120));
    runs.push(await start());
    writeSkill(root, 'two', skillMarkdown('two', 'Two', ['add']));
    runs.push(await start());
    writeSkill(root, 'one', skillMarkdown('one', 'One, changed', ['echo', 'noop']));
    await new Promise((resolve) => setTimeout(resolve, 60));
    runs.push(await start());
    removeSkill(root, 'two');
    runs.push(await start());
    // Let the watcher settle, then let every run take its next step.
    await eventually(
      () =>
        manager
          .snapshot(root)
          .skills.map((skill) => skill.name)
          .join() === 'one',
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    testTools.gateControl.open();
    await Promise.all(runs.map((run) => run.result()));
    const expected = manager.snapshot(root).hash;
    for (const run of runs) {
      const status = await run.status();
      expect(status.skills).toEqual([expect.objectContaining({ source: root, hash: expected, names: ['one'] })]);
      expect(status.activeTools).toEqual(['gate', 'echo', 'noop']);
    }
  });

  it("reaches a running sub-agent: its run carries the parent's skill sources as AgentSkillSources", async () => {
    const folder = tempSkillRoot();
    const folderManager = new SkillSyncManager();
    folderManager.addWatcher(new LocalFolderWatcher(folder, { debounceMs: 100 }));
    const notifier = new RunNotifier(env.client, { settleMs: 1_500 });
    folderManager.onBatch(async (batch) => void (await notifier.notify(batch)));
    await folderManager.start();
    try {
      testTools.gateControl.reset();
      const run = await env.agents.startRun({
        config: { name: 'mentor', model: 'scripted:mentor', tools: ['gate', 'spawn_self'], skill_sources: [folder] },
        task: 'Delegate',
      });
      await testTools.gateControl.reached();
      const [child] = await eventually(async () => {
        const found: WorkflowExecutionInfo[] = [];
        for await (const execution of env.client.workflow.list({ query: `ParentWorkflowId = '${run.workflowId}'` })) found.push(execution);
        return found.length === 1 && found;
      });
      expect(child!.typedSearchAttributes.get(AgentSkillSourcesAttribute)).toEqual([folder]);
      writeSkill(folder, 'adder', skillMarkdown('adder', 'Adds numbers.', ['add']));
      const childRun = env.agents.getRun(child!.workflowId);
      await eventually(async () => (await toolsOf(childRun)).includes('add'));
      testTools.gateControl.open();
      expect((await childRun.result()).output).toBe('child learned: 5');
      expect((await run.result()).output).toBe('delegated');
      await recordHistory('subagent-skills', run);
    } finally {
      // A child left in the gate would keep the worker from shutting down.
      testTools.gateControl.open();
      await folderManager.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('follows a git repository: the worker clones it at the start, pushed commits reach the run', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'git-run-'));
    const remote = path.join(base, 'skills.git');
    const work = path.join(base, 'work');
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
    git(base, 'init', '--bare', '--initial-branch=main', remote);
    git(base, 'clone', remote, work);
    git(work, 'checkout', '-B', 'main');
    writeSkill(work, 'first', skillMarkdown('first', 'From git', ['noop']));
    git(work, 'add', '-A');
    git(work, 'commit', '-m', 'first');
    git(work, 'push', 'origin', 'main');
    const gitManager = new SkillSyncManager();
    gitManager.addWatcher(new GitPollingWatcher(remote, { cacheDir: path.join(base, 'watcher-cache'), pollIntervalMs: 200 }));
    const notifier = new RunNotifier(env.client, { settleMs: 1_000 });
    gitManager.onBatch(async (batch) => void (await notifier.notify(batch)));
    await gitManager.start();
    try {
      testTools.gateControl.reset();
      const run = await env.agents.startRun({
        config: { name: 'git-learner', model: 'scripted:gitLearner', tools: ['gate'], skill_sources: [remote] },
        task: 'Learn from git',
      });
      await testTools.gateControl.reached();
      writeSkill(work, 'second', skillMarkdown('second', 'Also from git', ['add']));
      git(work, 'add', '-A');
      git(work, 'commit', '-m', 'second');
      git(work, 'push', 'origin', 'main');
      await eventually(async () => (await toolsOf(run)).includes('add'));
      testTools.gateControl.open();
      expect((await run.result()).output).toBe('learned from git');
    } finally {
      await gitManager.stop();
      rmSync(base, { recursive: true, force: true });
    }
  });
});
