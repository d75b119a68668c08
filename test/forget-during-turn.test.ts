import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { AgentClient } from '../src/client/agent-client';
import { FolderMemoryStore } from '../src/memory/folder-memory-store';
import { forgetResource } from '../src/memory/forget-resource';
import type { RememberRequest } from '../src/memory/memory-store';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * "Forget this user" while one of the user's threads is storing memories, on the real dev server:
 * the thread is stopped before its memory is deleted, and a memory tool call that was running
 * when it stopped (its write lands after the stop) is deleted too. Nothing is left when the call
 * returns, nothing appears afterwards, and a second forget has nothing more to delete.
 */

/** The folder store, with every write landing `delayMs` after it was asked for: a store busy enough that a call is still running when its thread stops. */
class SlowWrites extends FolderMemoryStore {
  constructor(
    directory: string,
    private readonly delayMs: number,
  ) {
    super(directory);
  }
  override async remember(request: RememberRequest) {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.remember(request);
  }
}

let folder: string;
let memory: SlowWrites;
let env: TestEnvironment;
let agents: AgentClient;

// Each step stores three facts at once, for 30 steps: the turn is storing whenever forget comes.
const storing = {
  replies: [
    ...Array.from({ length: 30 }, (_, step) => ({
      toolCalls: ['a', 'b', 'c'].map((part) => ({ name: 'remember', args: { text: `Fact ${step + 1}${part} about the user.` } })),
    })),
    { text: 'Stored everything.' },
  ],
};

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'forget-during-turn-'));
  memory = new SlowWrites(path.join(folder, 'memory'), 300);
  const artifacts = new FolderArtifactStore(path.join(folder, 'artifacts'));
  env = await createTestEnvironment({ tools: createTestTools().tools, memory, artifacts, scripts: { storing } });
  agents = new AgentClient(env.client, { taskQueue: env.taskQueue, namespace: env.client.options.namespace, uiUrl: null, artifacts });
});

afterAll(async () => {
  await env?.close();
  await memory?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function entriesOf(resource: string): Promise<number> {
  return (await memory.recall({ resource, text: 'fact user', limit: 50 })).length;
}

describe('forgetting a user while a thread of theirs stores memories', () => {
  it('leaves nothing, 10 times out of 10, and a second forget finds nothing more', async () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      const resource = `user:forget-${attempt}-${randomUUID().slice(0, 6)}`;
      const thread = agents.thread(`forget-${attempt}-${randomUUID().slice(0, 8)}`, {
        config: { name: 'keeper', model: 'scripted:storing', memory: true },
        resourceId: resource,
      });
      await thread.send('Remember everything about me.');
      // Storing has begun (and goes on: 90 facts), and visibility lists the thread under the resource.
      await eventually(async () => (await entriesOf(resource)) >= 2, 60_000);
      await eventually(
        async () => (await agents.listThreads({ resourceId: resource })).some((listed) => listed.threadId === thread.threadId),
        30_000,
      );
      const report = await forgetResource(resource, { memory, threads: agents });
      expect(report).toMatchObject({ resource, threads: 1, complete: true, pending: [] });
      expect(report.memoryEntries).toBeGreaterThanOrEqual(2);
      expect(await entriesOf(resource)).toBe(0);
      // Longer than a write takes: a call that was running has landed by now, and was deleted.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await entriesOf(resource)).toBe(0);
      const again = await forgetResource(resource, { memory, threads: agents });
      expect(again).toMatchObject({ resource, memoryEntries: 0, threads: 0, threadArtifacts: 0, workflowExecutions: 0, complete: true, pending: [] });
    }
  }, 280_000);
});
