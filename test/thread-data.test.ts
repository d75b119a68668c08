import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WorkflowNotFoundError } from '@temporalio/client';
import { FolderArtifactStore } from '../src/artifacts/folder-artifact-store';
import { AgentClient } from '../src/client/agent-client';
import { memoryForgetCommand } from '../src/cli/commands/memory-command';
import { threadDeleteCommand, threadShowCommand } from '../src/cli/commands/thread-commands';
import { FolderMemoryStore } from '../src/memory/folder-memory-store';
import { forgetResource, type ForgetResourceReport } from '../src/memory/forget-resource';
import { configHashOf, parsedConfigHashOf } from '../src/client/config-hash';
import { prepareAgents } from '../src/client/prepared-agents';
import { ErrorCode } from '../src/protocol/errors';
import type { AgentThreadInput } from '../src/protocol/thread-types';
import { WireName } from '../src/protocol/wire-names';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';
import { printed } from './support/printed';

const testTools = createTestTools();
let env: TestEnvironment;
let folder: string;
let artifacts: FolderArtifactStore;
/** A client with the workers' artifact store: it reads continued threads and deletes threads. */
let agents: AgentClient;

const scripts = {
  many: { replies: Array.from({ length: 40 }, () => ({ text: 'Reply to {{user}}' })) },
  // Turn 1 answers at once; turn 2 calls a tool, then answers.
  chat: {
    replies: [
      { text: 'Answer 1: {{user}}' },
      { toolCalls: [{ name: 'echo', args: { text: 'looked up' } }] },
      { text: 'Answer 2: {{user}} / {{tool:echo}}' },
    ],
  },
};

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'thread-data-'));
  artifacts = new FolderArtifactStore(path.join(folder, 'artifacts'));
  env = await createTestEnvironment({ tools: testTools.tools, scripts, artifacts });
  agents = new AgentClient(env.client, { taskQueue: env.taskQueue, namespace: env.client.options.namespace, uiUrl: null, artifacts });
});

afterAll(async () => {
  await env?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** A thread of two turns (the second calls a tool) that continues as new between them: its earlier messages are a snapshot. */
async function continuedThread(resourceId?: string) {
  const threadId = `thread-data-${randomUUID().slice(0, 8)}`;
  const thread = agents.thread(threadId, {
    config: { name: 'assistant', model: 'scripted:chat', tools: ['echo'] },
    historyEventLimit: 12,
    ...(resourceId ? { resourceId } : {}),
  });
  // Artifacts are named by their content: a text of its own keeps this thread's snapshots apart from other threads'.
  await (await thread.send(`hello from ${threadId}`)).result();
  await (await thread.send('again')).result();
  return thread;
}

function artifactFiles(): string[] {
  try {
    return readdirSync(path.join(folder, 'artifacts')).filter((name) => name.endsWith('.txt'));
  } catch {
    return [];
  }
}

async function executionsOf(workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(execution.runId);
  return runs;
}

describe("a thread's messages", () => {
  it('reads the whole conversation across continue-as-new, while the thread is open and once it is closed', async () => {
    const thread = await continuedThread();
    expect((await executionsOf(thread.threadId)).length).toBeGreaterThan(1);
    const expected = [
      `hello from ${thread.threadId}`,
      `Answer 1: hello from ${thread.threadId}`,
      'again',
      '',
      'looked up',
      'Answer 2: again / looked up',
    ];
    const open = await thread.messages();
    expect(open.map((message) => message.content)).toEqual(expected);
    expect(open.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    // Without the artifact store, the snapshot part cannot be read: a typed error naming what to give.
    await expect(env.agents.thread(thread.threadId).messages()).rejects.toMatchObject({
      code: ErrorCode.agentConfigInvalid,
      problems: [expect.stringContaining('artifacts:')],
    });
    const shown = await printed(() => threadShowCommand(thread.threadId, { messages: true }, agents));
    expect(shown).toContain('[user] again');
    expect(shown).toContain('[tool echo] looked up');
    expect(shown).toContain('[assistant]  → echo({"text":"looked up"})');
    await thread.close();
    await thread.run.workflow.result();
    expect((await thread.messages()).map((message) => message.content)).toEqual(expected);
  });
});

describe('deleting a thread', () => {
  it('ends it, deletes its snapshots and every execution of its chain, and says ThreadNotFound afterwards', async () => {
    const before = new Set(artifactFiles());
    const thread = await continuedThread();
    const written = artifactFiles().filter((name) => !before.has(name));
    expect(written.length).toBeGreaterThan(0);
    const runs = await executionsOf(thread.threadId);
    expect(runs.length).toBeGreaterThan(1);

    // Open (idle between turns): deleted all the same.
    const deleted = await thread.delete();
    expect(deleted).toEqual({ threadId: thread.threadId, artifacts: written.length, workflowExecutions: runs.length, terminated: true });
    expect(artifactFiles().filter((name) => !before.has(name))).toEqual([]);
    for (const runId of runs) {
      // Temporal deletes executions asynchronously (a task after the request): wait for it.
      await eventually(
        () =>
          env.client.workflow
            .getHandle(thread.threadId, runId)
            .describe()
            .then(
              () => false,
              (error: unknown) => error instanceof WorkflowNotFoundError,
            ),
        90_000,
      );
    }
    await expect(thread.delete()).rejects.toMatchObject({ code: ErrorCode.threadNotFound, threadId: thread.threadId });
    await expect(thread.messages()).rejects.toBeDefined();
  }, 150_000);

  it('refuses an unknown id, a run, and a client without an artifact store, before deleting anything', async () => {
    await expect(agents.thread(`no-such-thread-${randomUUID()}`).delete()).rejects.toMatchObject({ code: ErrorCode.threadNotFound });
    const run = await agents.startRun({ config: { name: 'runner', model: 'scripted:many' }, task: 'hi', checkWorkerTools: false });
    await run.result();
    await expect(agents.thread(run.workflowId).delete()).rejects.toMatchObject({
      code: ErrorCode.threadNotFound,
      message: expect.stringContaining('not a thread'),
    });
    const thread = agents.thread(`thread-kept-${randomUUID().slice(0, 8)}`, { config: { name: 'assistant', model: 'scripted:many' } });
    await (await thread.send('keep me')).result();
    await expect(env.agents.thread(thread.threadId).delete()).rejects.toMatchObject({ code: ErrorCode.agentConfigInvalid });
    expect((await thread.status()).turnsCompleted).toBe(1);
    const output = await printed(() => threadDeleteCommand(thread.threadId, { json: true }, agents));
    expect(JSON.parse(output)).toEqual({ threadId: thread.threadId, artifacts: 0, workflowExecutions: 1, terminated: true });
  });
});

describe('forgetting a resource', () => {
  it("deletes the resource's memory and its threads, open and closed, and leaves other resources' threads", async () => {
    const resource = `user:${randomUUID().slice(0, 8)}`;
    const memory = new FolderMemoryStore(path.join(folder, 'memory'));
    await memory.remember({ resource, text: 'prefers tea' });
    const open = await continuedThread(resource);
    const closed = agents.thread(`thread-closed-${randomUUID().slice(0, 8)}`, {
      config: { name: 'assistant', model: 'scripted:many' },
      resourceId: resource,
    });
    await (await closed.send('bye')).result();
    await closed.close();
    await closed.run.workflow.result();
    const other = agents.thread(`thread-other-${randomUUID().slice(0, 8)}`, {
      config: { name: 'assistant', model: 'scripted:many' },
      resourceId: `${resource}-other`,
    });
    await (await other.send('stay')).result();
    // Visibility is eventually consistent: wait until both threads are listed under the resource.
    let listed: Awaited<ReturnType<typeof agents.listThreads>> = [];
    await eventually(async () => {
      listed = [...(await agents.listThreads({ resourceId: resource })), ...(await agents.listThreads({ resourceId: resource, status: 'closed' }))];
      return (
        listed.some((entry) => entry.threadId === open.threadId && entry.open) &&
        listed.some((entry) => entry.threadId === closed.threadId && !entry.open)
      );
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}; listed ${JSON.stringify(listed)}`);
    });

    const openRuns = (await executionsOf(open.threadId)).length;
    const report = JSON.parse(await printed(() => memoryForgetCommand(resource, { json: true }, memory, agents))) as ForgetResourceReport;
    expect(report).toMatchObject({ resource, memoryEntries: 1, threads: 2, workflowExecutions: openRuns + 1, complete: true, pending: [] });
    expect(report.threadArtifacts).toBeGreaterThan(0);
    expect((await other.status()).turnsCompleted).toBe(1);
    expect(await forgetResource(`${resource}-nobody`, { memory })).toEqual({
      resource: `${resource}-nobody`,
      memoryEntries: 0,
      threads: null,
      threadArtifacts: null,
      workflowExecutions: null,
      complete: true,
      pending: [],
    });
    const memoryOnly = await printed(() => memoryForgetCommand(resource, { memoryOnly: true }, memory, agents));
    expect(memoryOnly).toContain('threads left alone (--memory-only)');
    await other.close();
  });
});

describe('config hash of a thread', () => {
  it('hashes the config as the caller wrote it: key order does not matter, defaults are not part of it', () => {
    const written = { name: 'support', model: 'scripted:many', tools: ['echo'] };
    const reordered = { tools: ['echo'], model: 'scripted:many', name: 'support' };
    expect(configHashOf(written)).toBe(configHashOf(reordered));
    expect(configHashOf(written)).not.toBe(configHashOf({ ...written, name: 'other' }));
    // The parsed config holds the library's defaults: its hash is another one.
    const { config } = prepareAgents(written, undefined, undefined, 'thread');
    expect(parsedConfigHashOf(config)).not.toBe(configHashOf(written));
  });

  it('still answers the caller of a thread created with the parsed config hash (before this version), and refuses another config', async () => {
    const given = { name: 'assistant', model: 'scripted:many' };
    const { config } = prepareAgents(given, undefined, undefined, 'thread');
    const threadId = `thread-old-hash-${randomUUID().slice(0, 8)}`;
    const input: AgentThreadInput = {
      config,
      configHash: parsedConfigHashOf(config),
      settings: { policy: 'enqueue', idleTimeoutMs: null, resourceId: null },
    };
    await env.client.workflow.start(WireName.agentThreadWorkflow, { workflowId: threadId, taskQueue: env.taskQueue, args: [input] });
    const thread = env.agents.thread(threadId, { config: given });
    expect((await (await thread.send('hello')).result()).output).toBe('Reply to hello');
    await expect(env.agents.thread(threadId, { config: { ...given, name: 'someone-else' } }).send('hi')).rejects.toMatchObject({
      code: ErrorCode.threadConfigMismatch,
    });
    await thread.close();
  });

  it('answers a caller whose config lists the same fields in another order', async () => {
    const threadId = `thread-new-hash-${randomUUID().slice(0, 8)}`;
    const first = env.agents.thread(threadId, { config: { name: 'assistant', model: 'scripted:many', max_steps: 5 } });
    await (await first.send('one')).result();
    const second = env.agents.thread(threadId, { config: { max_steps: 5, model: 'scripted:many', name: 'assistant' } });
    expect((await (await second.send('two')).result()).output).toBe('Reply to two');
    await first.close();
  });
});
