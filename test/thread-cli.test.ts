import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnInGroup, stopProcessGroup } from './support/process-group';
import { runCli, type CliResult } from './support/cli-process';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

const ROOT = path.resolve(__dirname, '..');
let env: TestEnvironment;
let folder: string;
let config: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'thread-cli-'));
  writeFileSync(
    path.join(folder, 'script.yaml'),
    [
      'replies:',
      '  - text: "First answer to {{user}}"',
      '  - toolCalls: [{ name: add, args: { a: 20, b: 22 } }]',
      '  - text: "The sum is {{tool:add}}"',
      '  - text: "Third answer to {{user}}"',
    ].join('\n'),
  );
  config = path.join(folder, 'chat-agent.yaml');
  writeFileSync(config, ['name: chat-agent', 'model: scripted:script.yaml', 'tools: [add]', 'hitl_tools: [add]'].join('\n'));
  env = await createTestEnvironment({ tools: createTestTools().tools });
});

afterAll(async () => {
  await env?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** The CLI's `chat` with `lines` piped to its standard input (its own process group, ended after). */
function chat(args: string[], lines: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnInGroup(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/cli.ts'), 'chat', ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    // Once it exits, what it started goes too.
    child.on('exit', (code) => void stopProcessGroup(child).then(() => resolve({ code, stdout, stderr }), reject));
    child.stdin!.end(`${lines.join('\n')}\n`);
  });
}

describe('thread commands', () => {
  it('sends, follows, shows, lists and closes a thread', async () => {
    const threadId = `cli-thread-${randomUUID().slice(0, 8)}`;
    const first = await runCli([
      'thread',
      'send',
      threadId,
      'hello there',
      '-c',
      config,
      '--resource',
      'user:cli',
      '--follow',
      '--task-queue',
      env.taskQueue,
    ]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`turn 1 of thread ${threadId} (started)`);
    expect(first.stdout).toContain('First answer to hello there');

    const show = await runCli(['thread', 'show', threadId, '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ phase: 'idle', turnsCompleted: 1, settings: { resourceId: 'user:cli' } });

    const busy = await runCli(['thread', 'send', threadId, 'x', '--policy', 'sometimes']);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain('--policy: must be one of enqueue, inject, interrupt, reject');

    const list = await runCli(['thread', 'list', '--resource', 'user:cli', '--json']);
    expect(list.code).toBe(0);
    const close = await runCli(['thread', 'close', threadId, '--reason', 'done']);
    expect(close.stdout).toContain(`Thread ${threadId} closes`);
    const closed = await runCli(['thread', 'send', threadId, 'still there?']);
    expect(closed.code).toBe(2);
    expect(closed.stderr).toContain(`thread ${threadId} is closed: start a new thread`);
  }, 300_000);

  it('chats: streams answers, asks for approvals, and leaves the thread waiting on /quit', async () => {
    const threadId = `cli-chat-${randomUUID().slice(0, 8)}`;
    const session = await chat(
      ['-c', config, '--thread', threadId, '--task-queue', env.taskQueue],
      ['hi', 'add twenty and twenty-two', '', 'ok', 'y', '/quit'],
    );
    expect(session.stderr).toBe('');
    expect(session.code).toBe(0);
    expect(session.stdout).toContain('First answer to hi');
    expect(session.stdout).toContain('add wants to run');
    expect(session.stdout).toContain('    a: 20\n    b: 22\n');
    expect(session.stdout).toContain('approve add? [y/n] ');
    // Piped answers are read as strictly as typed ones: the empty line and "ok" asked again.
    expect(session.stdout.split('Not decided.').length - 1).toBe(2);
    expect(session.stdout).toContain('approved by');
    expect(session.stdout).toContain('The sum is 42');
    const unknownPolicy = await runCli(['chat', '--thread', threadId, '--while-busy', 'sometimes']);
    expect(unknownPolicy.code).toBe(2);
    expect(unknownPolicy.stderr).toContain("--while-busy: must be one of enqueue, inject, interrupt, not 'sometimes'");
    const again = await chat(['--thread', threadId], ['one more', '/close']);
    expect(again.stdout).toContain('you> hi\n  First answer to hi');
    expect(again.stdout).toContain('Third answer to one more');
    expect(again.stdout).toContain(`Thread ${threadId} closed.`);
  }, 300_000);
});
