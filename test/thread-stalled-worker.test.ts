import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { stringify as stringifyYaml } from 'yaml';
import { workerProcessFixture } from './support/worker-process-fixture';

const fixture = workerProcessFixture('thread-stalled');

describe('a thread whose worker stalls', () => {
  // A stopped (SIGSTOP) worker keeps its connection, so the server hands it the thread's workflow
  // tasks, which time out one after another: from the third attempt the server refuses updates
  // ("Workflow Task in failed state") until a worker completes the task. A message sent then is
  // delivered once a worker can take it, never thrown back at the sender.
  it('delivers and answers a message sent while its workflow task times out again and again', async () => {
    const script = path.join(fixture.folder, 'model.yaml');
    writeFileSync(script, stringifyYaml({ replies: [{ text: 'first: {{user}}' }, { text: 'second: {{user}}' }] }));
    const stalled = await fixture.startWorker();
    const thread = fixture.agents.thread(`stalled-thread-${randomUUID().slice(0, 8)}`, { config: { name: 'stalled', model: `scripted:${script}` } });
    expect((await (await thread.send('hello')).result()).output).toBe('first: hello');

    stalled.child.kill('SIGSTOP');
    const sent = thread.send('again');
    // Two workflow task timeouts (10 s each) put the task on its third attempt.
    await waitForWorkflowTaskAttempt(thread.threadId, 3, 90_000);
    await fixture.startWorker();
    const turn = await sent;
    expect(turn.turn).toBe(2);
    expect((await turn.result()).output).toBe('second: again');
  }, 180_000);
});

/** Waits until the thread's pending workflow task is on attempt `attempt` (or later). */
async function waitForWorkflowTaskAttempt(threadId: string, attempt: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const description = await fixture.agents.temporal.workflowService.describeWorkflowExecution({
      namespace: fixture.agents.namespace,
      execution: { workflowId: threadId },
    });
    if ((description.pendingWorkflowTask?.attempt ?? 0) >= attempt) return;
    if (Date.now() > deadline) throw new Error(`the workflow task of ${threadId} did not reach attempt ${attempt} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
