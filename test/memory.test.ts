import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NativeConnection } from '@temporalio/worker';
import { stringify as stringifyYaml } from 'yaml';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { freePort } from '../src/devserver/dev-server';
import { FolderMemoryStore } from '../src/memory/folder-memory-store';
import type { ForgetRequest, MemoryStore, RecallQuery, RememberRequest } from '../src/memory/memory-store';
import { PostgresMemoryStore } from '../src/memory/postgres-memory-store';
import { ErrorCode } from '../src/protocol/errors';
import { createAgentWorker } from '../src/worker/create-worker';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { startPostgres, type Postgres } from './support/postgres';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Agents with `memory: true` on the real dev server, with the scripted model: what one run
 * remembers for a resource, a later run recalls; retried calls store once; a store that is down is
 * an error result the model sees; a worker whose PostgreSQL memory is unreachable does not start.
 */

/**
 * The folder store, except that a remember whose text asks for it answers late once after storing
 * (`[answers late once]`): the tool activity times out after the write and Temporal retries it, as
 * when a worker dies between the write and reporting the result.
 */
class AnswersLateOnce implements MemoryStore {
  readonly lateAnswers: string[] = [];
  constructor(
    readonly inner: MemoryStore,
    private readonly lateMs: number,
  ) {}
  open = () => this.inner.open();
  recall = (query: RecallQuery) => this.inner.recall(query);
  forget = (request: ForgetRequest) => this.inner.forget(request);
  forgetResource = (resource: string) => this.inner.forgetResource(resource);
  close = () => this.inner.close();
  async remember(request: RememberRequest) {
    const stored = await this.inner.remember(request);
    const key = request.idempotencyKey ?? '';
    if (request.text.includes('[answers late once]') && !this.lateAnswers.includes(key)) {
      this.lateAnswers.push(key);
      await new Promise((resolve) => setTimeout(resolve, this.lateMs));
    }
    return stored;
  }
}

let folder: string;
let memory: AnswersLateOnce;
let env: TestEnvironment;
const assistant = (script: string) => ({ name: 'assistant', model: `scripted:${script}`, memory: true });

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'memory-runs-'));
  memory = new AnswersLateOnce(new FolderMemoryStore(path.join(folder, 'memory')), 5_000);
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    memory,
    scripts: {
      rememberer: {
        replies: [
          {
            toolCalls: [{ name: 'remember', args: { text: 'Prefers answers in French.', tags: ['language'] } }],
            expect: { toolsInclude: ['remember', 'recall', 'forget'] },
          },
          { text: 'Noted: {{tool:remember}}' },
        ],
      },
      recaller: { replies: [{ toolCalls: [{ name: 'recall', args: { query: 'language french' } }] }, { text: 'I recall: {{tool:recall}}' }] },
      lateRememberer: {
        replies: [{ toolCalls: [{ name: 'remember', args: { text: 'Has a cat. [answers late once]' } }] }, { text: '{{tool:remember}}' }],
      },
      forgetter: { replies: [{ toolCalls: [{ name: 'forget', args: { matching: 'french' } }] }, { text: '{{tool:forget}}' }] },
      triage: { replies: [{ toolCalls: [{ name: 'transfer_to_keeper', args: {} }] }, { text: 'unused' }] },
      keeper: {
        replies: [
          { text: 'unused: step 1 is triage' },
          { toolCalls: [{ name: 'remember', args: { text: 'Asked for a refund.' } }] },
          { text: 'kept: {{tool:remember}}' },
        ],
      },
      threadMemory: {
        replies: [
          { toolCalls: [{ name: 'remember', args: { text: 'Likes green tea.' } }] },
          { text: 'Noted.' },
          { toolCalls: [{ name: 'recall', args: { query: 'tea' } }] },
          { text: 'From memory: {{tool:recall}}' },
        ],
      },
      delegator: {
        replies: [{ toolCalls: [{ name: 'spawn_self', args: { task: 'child: recall the language' } }] }, { text: 'child said {{tool:spawn_self}}' }],
        variants: [
          { taskIncludes: 'child: recall', replies: [{ toolCalls: [{ name: 'recall', args: { query: 'language' } }] }, { text: '{{tool:recall}}' }] },
        ],
      },
    },
  });
});

afterAll(async () => {
  await env?.close();
  await memory?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('memory across runs (folder store)', () => {
  it('recalls in a later run what an earlier run remembered for the same resource, and nothing for another resource', async () => {
    const first = await env.agents.startRun({ config: assistant('rememberer'), task: 'Answer in French from now on.', resourceId: 'user:42' });
    const remembered = await first.result();
    expect(remembered.output).toMatch(/^Noted: Remembered as mem-[0-9a-f]{32}\.$/);
    const [entry] = await memory.recall({ resource: 'user:42' });
    expect(entry).toMatchObject({
      text: 'Prefers answers in French.',
      tags: ['language'],
      source: { workflowId: first.workflowId, callId: remembered.toolResults[0]!.callId },
    });

    const second = await env.agents.startRun({ config: assistant('recaller'), task: 'How should you answer me?', resourceId: 'user:42' });
    expect((await second.result()).output).toBe(`I recall: - ${entry!.id} (${entry!.createdAt.slice(0, 10)}): Prefers answers in French. [language]`);
    const stranger = await env.agents.startRun({ config: assistant('recaller'), task: 'How should you answer me?', resourceId: 'user:43' });
    expect((await stranger.result()).output).toBe('I recall: No memories match "language french".');
    await recordHistory('memory-remember', first);
    await recordHistory('memory-recall', second);
  });

  it('refuses a run of an agent with memory and no (or a malformed) resource id before anything starts', async () => {
    for (const resourceId of [undefined, ' user:1', 'user\n1']) {
      const refusal = await env.agents
        .startRun({ config: assistant('recaller'), task: 'Hi', ...(resourceId !== undefined ? { resourceId } : {}) })
        .then(
          () => null,
          (error: { code?: string; problems?: string[] }) => error,
        );
      expect(refusal?.code).toBe(ErrorCode.agentConfigInvalid);
      expect(refusal?.problems?.[0]).toMatch(/^resourceId: /);
    }
  });

  it('stores one entry when the remember call is retried after its first attempt stored the fact', async () => {
    const run = await env.agents.startRun({
      config: assistant('lateRememberer'),
      task: 'I have a cat.',
      resourceId: 'user:retry',
      timeouts: { toolMs: 2_000 },
    });
    const result = await run.result();
    const entries = await memory.recall({ resource: 'user:retry' });
    expect(entries.map((entry) => entry.text)).toEqual(['Has a cat. [answers late once]']);
    expect(result.output).toBe(`Remembered as ${entries[0]!.id}.`);
    // The first attempt stored it and timed out; the second found it.
    expect(memory.lateAnswers).toHaveLength(1);
    const history = await run.workflow.fetchHistory();
    const attempts = (history.events ?? []).flatMap((event) =>
      event.activityTaskStartedEventAttributes ? [event.activityTaskStartedEventAttributes.attempt] : [],
    );
    expect(attempts).toContain(2);
  });

  it('forgets what the model asks to forget, and the memory command lists and forgets a whole resource', async () => {
    await memory.remember({ resource: 'user:50', text: 'Speaks French.' });
    await memory.remember({ resource: 'user:50', text: 'Lives in Quebec.' });
    await memory.remember({ resource: 'user:51', text: 'Speaks French too.' });
    const run = await env.agents.startRun({ config: assistant('forgetter'), task: 'Forget my language.', resourceId: 'user:50' });
    expect((await run.result()).output).toMatch(/^Forgot 1 memory:\n- mem-[0-9a-f]{32}: Speaks French\.$/);

    const environment = { AGENT_MEMORY_DIR: path.join(folder, 'memory') };
    const listed = await runCli(['memory', 'list', 'user:50', '--json'], environment);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { entries: Array<{ text: string }> }).entries.map((entry) => entry.text)).toEqual(['Lives in Quebec.']);
    const forgotten = await runCli(['memory', 'forget', 'user:50'], environment);
    expect(forgotten).toMatchObject({
      code: 0,
      stdout: 'Forgot user:50:\n  1 memory entry deleted\n  0 thread(s) deleted: 0 artifact(s), 0 workflow execution(s)\n',
    });
    expect(await memory.recall({ resource: 'user:50' })).toEqual([]);
    expect((await memory.recall({ resource: 'user:51' })).map((entry) => entry.text)).toEqual(['Speaks French too.']);
    const badResource = await runCli(['memory', 'list', ' '], environment);
    expect(badResource.code).toBe(2);
    expect(badResource.stderr).toContain('resource:');
  });

  it('keeps the resource through a handoff, and gives it to sub-agents', async () => {
    const keeper = { name: 'keeper', model: 'scripted:keeper', memory: true };
    const handedOff = await env.agents.startRun({
      config: { name: 'triage', model: 'scripted:triage', handoffs: ['keeper'] },
      task: 'Refund',
      resourceId: 'user:60',
      agents: { keeper },
    });
    expect((await handedOff.result()).output).toMatch(/^kept: Remembered as mem-/);
    expect((await memory.recall({ resource: 'user:60' })).map((entry) => entry.source?.workflowId)).toEqual([handedOff.workflowId]);

    await memory.remember({ resource: 'user:61', text: 'Reads Portuguese.', tags: ['language'] });
    const parent = await env.agents.startRun({
      config: { ...assistant('delegator'), tools: ['spawn_self'] },
      task: 'Ask a helper',
      resourceId: 'user:61',
    });
    expect((await parent.result()).output).toContain('Reads Portuguese.');
    await recordHistory('memory-handoff', handedOff);
    await recordHistory('memory-subagent', parent);
  });

  it("gives a thread's turns the thread's resource, and refuses a thread of a memory agent without one", async () => {
    const thread = env.agents.thread(`memory-thread-${randomUUID().slice(0, 8)}`, { config: assistant('threadMemory'), resourceId: 'user:70' });
    expect(await (await thread.send('I like green tea.')).result()).toMatchObject({ turn: 1, output: 'Noted.' });
    const answer = await (await thread.send('What do I like?')).result();
    expect(answer.output).toMatch(/^From memory: - mem-[0-9a-f]{32} \(\d{4}-\d{2}-\d{2}\): Likes green tea\.$/);
    expect((await memory.recall({ resource: 'user:70' })).map((entry) => entry.source?.workflowId)).toEqual([thread.threadId]);
    await recordHistory('memory-thread', thread.run);
    await thread.close('done');

    const anonymous = env.agents.thread(`memory-thread-${randomUUID().slice(0, 8)}`, { config: assistant('threadMemory') });
    const refusal = await anonymous.send('Hi').then(
      () => null,
      (error: { code?: string; problems?: string[] }) => error,
    );
    expect(refusal?.code).toBe(ErrorCode.agentConfigInvalid);
    expect(refusal?.problems?.[0]).toMatch(/^resourceId: agent 'assistant' has memory: true/);
  });

  it('refuses `run --resource` problems before connecting: a config with memory and no resource exits 2', async () => {
    const config = path.join(folder, 'assistant.yaml');
    writeFileSync(config, stringifyYaml(assistant('recaller')));
    const refused = await runCli(['run', '--config', config, '--task', 'Hi'], { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--resource: agent 'assistant' has memory: true");
  });
});

describe('memory on PostgreSQL', () => {
  let postgres: Postgres;
  let store: PostgresMemoryStore;
  let pgEnv: TestEnvironment;

  beforeAll(async () => {
    postgres = await startPostgres(await freePort());
    store = new PostgresMemoryStore({ connectionString: postgres.url, connectionTimeoutMs: 2_000 });
    pgEnv = await createTestEnvironment({
      tools: [],
      memory: store,
      scripts: {
        rememberer: { replies: [{ toolCalls: [{ name: 'remember', args: { text: 'Works night shifts.' } }] }, { text: '{{tool:remember}}' }] },
        recaller: { replies: [{ toolCalls: [{ name: 'recall', args: { query: 'shift' } }] }, { text: 'recalled: {{tool:recall}}' }] },
      },
    });
  }, 90_000);

  afterAll(async () => {
    await pgEnv?.close();
    await store?.close();
    await postgres?.stop();
  });

  it('recalls across runs; with the server down, recall is an error result and the run completes; a worker that cannot reach it does not start', async () => {
    await (await pgEnv.agents.startRun({ config: assistant('rememberer'), task: 'I work nights.', resourceId: 'user:pg' })).result();
    const recalled = await (await pgEnv.agents.startRun({ config: assistant('recaller'), task: 'When do I work?', resourceId: 'user:pg' })).result();
    expect(recalled.output).toMatch(/^recalled: - mem-[0-9a-f]{32} \(\d{4}-\d{2}-\d{2}\): Works night shifts\.$/);

    await postgres.stop();
    const down = await (await pgEnv.agents.startRun({ config: assistant('recaller'), task: 'When do I work?', resourceId: 'user:pg' })).result();
    expect(down.stopReason).toBe('completed');
    expect(down.toolResults[0]).toMatchObject({ toolName: 'recall', isError: true, errorCode: ErrorCode.toolFailed });
    expect(down.toolResults[0]!.content).toContain(`PostgreSQL at 127.0.0.1:${postgres.port}/postgres) cannot be reached`);
    expect(down.output).toBe(`recalled: ${down.toolResults[0]!.content}`);

    const connection = await NativeConnection.connect(resolveTemporalTarget().connectionOptions);
    const unreachable = new PostgresMemoryStore({ connectionString: postgres.url, connectionTimeoutMs: 2_000 });
    try {
      const refusal = await createAgentWorker({ connection, tools: [], taskQueue: 'memory-unreachable', memory: unreachable }).then(
        () => null,
        (error: Error & { code?: string }) => error,
      );
      expect(refusal?.code).toBe(ErrorCode.memoryUnavailable);
      expect(refusal?.message).toContain('The agent worker does not start');
      expect(refusal?.message).not.toContain(postgres.password);
    } finally {
      await unreachable.close();
      await connection.close();
    }
  });
});
