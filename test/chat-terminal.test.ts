import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { PtyCli } from './support/pty-process';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

let env: TestEnvironment;
let folder: string;
let config: string;
const sessions: PtyCli[] = [];
const WORDS = Array.from({ length: 60 }, (_, index) => `w${String(index + 1).padStart(2, '0')}`);

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'chat-terminal-'));
  // Turn 1 streams for a while (time to type under it); turn 2 echoes what was typed; turn 3 needs an approval.
  const replies = [
    { text: WORDS.join(' '), streamMs: 200 },
    { text: 'Echo: {{user}}' },
    { toolCalls: [{ name: 'add', args: { a: 20, b: 22 } }] },
    { text: 'The sum is {{tool:add}}' },
  ];
  writeFileSync(path.join(folder, 'script.json'), JSON.stringify({ replies }));
  config = path.join(folder, 'terminal-agent.json');
  writeFileSync(config, JSON.stringify({ name: 'terminal-agent', model: 'scripted:script.json', tools: ['add'], hitl_tools: ['add'] }));
  env = await createTestEnvironment({ tools: createTestTools().tools });
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.stop()));
});

afterAll(async () => {
  await env?.close();
  rmSync(folder, { recursive: true, force: true });
});

function chat(args: string[]): PtyCli {
  const session = new PtyCli(['chat', ...args, '--by', 'tester', '--task-queue', env.taskQueue]);
  sessions.push(session);
  return session;
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** The approvals the thread waits for, as the client reads them (polled: the run's state moves on its own). */
async function pendingApprovals(threadId: string): Promise<string[]> {
  const status = await env.agents.thread(threadId).run.status();
  return status.pendingApprovals.map((request) => request.approvalId);
}

describe('chat on a terminal', () => {
  it('keeps typed input intact during a stream, decides approvals only on an explicit answer, and shows the history on a restart', async () => {
    const threadId = `pty-chat-${randomUUID().slice(0, 8)}`;
    const first = chat(['-c', config, '--thread', threadId]);
    await first.waitFor('you> ');
    await first.type('tell me a long story\r');

    // Typed while the answer streams: the half-typed line is drawn again under each streamed word.
    await first.waitFor(`${WORDS[4]} `);
    const typed = 'second message, typed while streaming';
    await first.type(typed.slice(0, 14));
    const typedAt = first.text.length;
    await first.waitFor('streamed words after the typing, with the typed text redrawn under them', (text) => {
      const after = text.slice(typedAt);
      const word = WORDS.slice(8).find((candidate) => after.includes(`${candidate} `));
      return word !== undefined && after.indexOf(typed.slice(0, 14), after.indexOf(word)) > 0;
    });
    // On the screen: the answer streams on its own rows, the typed text stays whole on the input row.
    const screen = await first.screen();
    expect(screen.rows[screen.cursorRow]).toBe(`you [turn 1 running, enqueue]> ${typed.slice(0, 14)}`);
    expect(screen.rows[screen.cursorRow - 1]).toMatch(/^ {2}w01 w02 w03 w04 w05 w06 w07 w08 w09\b/);
    expect(screen.rows.filter((row) => row.includes(typed.slice(0, 6)))).toHaveLength(1);
    await first.type(`${typed.slice(14)}\r`);
    // Sent during turn 1 (the prompt said so), queued for turn 2, answered intact.
    await first.waitFor(`you [turn 1 running, enqueue]> ${typed}`);
    await first.waitFor(`Echo: ${typed}`);
    await first.waitFor('(turn 2: completed');
    expect(first.text.indexOf('(turn 1: completed')).toBeLessThan(first.text.indexOf('(turn 2: completed'));
    // The sent line stays in the transcript whole, above the answer it was typed under.
    const rows = (await first.screen()).rows;
    expect(rows).toContain(`you [turn 1 running, enqueue]> ${typed}`);
    expect(rows.findIndex((row) => row.startsWith('  w01 w02'))).toBeGreaterThan(rows.indexOf(`you [turn 1 running, enqueue]> ${typed}`));
    const transcript = await env.agents.thread(threadId).history();
    expect(transcript.turns[1]?.messages.map((message) => message.text)).toEqual([typed]);
    // The answer's words all arrived, around the line typed in the middle of it.
    for (const word of WORDS) expect(first.text).toContain(word);

    // An empty Enter and "ok" decide nothing: the prompt asks again and the call still waits.
    await first.type('please add\r');
    await first.waitFor('add wants to run');
    expect(first.text).toContain('a: 20');
    await first.waitFor('approve add? [y/n] ');
    first.keys('\r');
    await first.waitFor('Not decided');
    await first.type('ok\r');
    await first.waitFor('Not decided twice', (text) => count(text, 'Not decided') >= 2);
    expect(await pendingApprovals(threadId)).toEqual(['step-3.call-1']);

    // Ctrl-C during the turn asks first; the second leaves, and the call still waits on the server.
    first.keys('\x03');
    await first.waitFor('Press Ctrl-C again to leave');
    expect(first.text).toContain('Turn 3 keeps running on the server');
    first.keys('\x03');
    expect(await first.exited).toBe(0);
    expect(first.text).toContain(`Left the chat. Thread ${threadId} stays and turn 3 goes on`);
    expect(await pendingApprovals(threadId)).toEqual(['step-3.call-1']);

    // Opening the thread again shows what was said, follows the running turn and asks again.
    const second = chat(['--thread', threadId]);
    await second.waitFor('Turn 3 is still running');
    expect(second.text).toContain('you> tell me a long story');
    expect(second.text).toContain(`you> ${typed}`);
    expect(second.text).toContain(`Echo: ${typed}`);
    await second.waitFor('approve add? [y/n] ');
    await second.type('approve\r');
    await second.waitFor('The sum is 42');
    expect(second.text).toContain('approved by tester');
    await second.waitFor('(turn 3: completed');
    await second.waitFor('you> ', (text) => text.trimEnd().endsWith('you>'));
    second.keys('\x03');
    expect(await second.exited).toBe(0);
    expect(await pendingApprovals(threadId)).toEqual([]);
  }, 420_000);
});
