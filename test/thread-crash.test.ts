import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { stringify as stringifyYaml } from 'yaml';
import { eventually } from './support/test-env';
import { loggedExecutions as executions } from './support/worker-process';
import { workerProcessFixture } from './support/worker-process-fixture';

const fixture = workerProcessFixture('thread-crash');

describe('a thread whose worker is killed', () => {
  it('finishes the running turn and the queued one on a new worker, losing no message and re-running no completed tool', async () => {
    const logFile = path.join(fixture.folder, 'executions.log');
    const release = path.join(fixture.folder, 'release');
    const script = path.join(fixture.folder, 'model.yaml');
    writeFileSync(
      script,
      stringifyYaml({
        replies: [
          { toolCalls: [{ name: 'record', args: { label: 'A' } }] },
          { text: 'Turn 1 done: {{tool:record}}' },
          { toolCalls: [{ name: 'wait_for_release', args: { label: 'C', release } }] },
          { text: 'Turn 2 done: {{tool:wait_for_release}}' },
          { text: 'Turn 3 answers: {{user}}' },
          { text: 'Turn 4 answers: {{user}}' },
        ],
      }),
    );
    const environment = { CRASH_LOG: logFile };
    const first = await fixture.startWorker(environment);
    const thread = fixture.agents.thread(`crash-thread-${randomUUID().slice(0, 8)}`, {
      config: { name: 'crash', model: `scripted:${script}`, tools: ['record', 'wait_for_release'] },
      timeouts: { heartbeatMs: 2_000 },
    });
    expect((await (await thread.send('first')).result()).output).toBe('Turn 1 done: recorded A');

    const second = await thread.send('second');
    await eventually(() => executions(logFile).includes('start C'), 60_000);
    const third = await thread.send('third, sent while the second runs');
    expect(third.receipt).toMatchObject({ turn: 3, disposition: 'queued' });
    await first.kill('SIGKILL');

    writeFileSync(release, 'go');
    const replacement = await fixture.startWorker(environment);
    expect((await second.result()).output).toBe('Turn 2 done: released C');
    expect((await third.result()).output).toBe('Turn 3 answers: third, sent while the second runs');

    // Killed again while the thread waits between turns: a message sent now is accepted once a
    // worker runs (an update needs one), and answered by it.
    await replacement.kill('SIGKILL');
    const sending = thread.send('fourth, sent while no worker runs');
    await fixture.startWorker(environment);
    const fourth = await sending;
    expect((await fourth.result()).output).toBe('Turn 4 answers: fourth, sent while no worker runs');

    const lines = executions(logFile);
    expect(lines.filter((line) => line === 'done A')).toHaveLength(1);
    expect(lines.filter((line) => line === 'start C')).toHaveLength(2);
    expect(lines.filter((line) => line === 'done C')).toHaveLength(1);
    expect((await thread.status()).turnsCompleted).toBe(4);
    await thread.close();
  }, 300_000);
});
