// AgentLastActivity on threads: set by the thread's own clock, listed by idle time, and safe on a namespace set up before it existed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { threadFilterOf } from '../src/cli/commands/thread-commands';
import { configHashOf } from '../src/client/config-hash';
import { parseAgentConfig } from '../src/config/agent-config';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { ErrorCode, SearchAttributesMissingError } from '../src/protocol/errors';
import { AgentLastActivityAttribute, AgentNameAttribute, AgentStatusAttribute } from '../src/protocol/search-attributes';
import { sendMessageUpdate } from '../src/protocol/thread-messages';
import type { AgentThreadInput } from '../src/protocol/thread-types';
import { WireName } from '../src/protocol/wire-names';
import type { agentThread } from '../src/workflows/thread/agent-thread';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

const scripts = { many: { replies: Array.from({ length: 20 }, () => ({ text: 'Reply to {{user}}' })) } };
const config = { name: 'assistant', model: 'scripted:many' };
let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment({ tools: [], scripts });
});

afterAll(async () => {
  await env?.close();
});

async function lastActivityOf(threadId: string): Promise<Date | undefined> {
  return (await env.client.workflow.getHandle(threadId).describe()).typedSearchAttributes.get(AgentLastActivityAttribute);
}

/** A namespace with the search attributes of the version before AgentLastActivity (as `setup` left it then). */
async function namespaceWithoutLastActivity(): Promise<string> {
  const namespace = `before-last-activity-${randomUUID().slice(0, 8)}`;
  const { connection } = env.client;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  // A namespace just created may not be known to the operator API for a moment.
  await eventually(async () => {
    const double = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { AgentName: keyword, AgentStatus: keyword, AgentResource: keyword, AgentCostUsd: double },
    });
    return true;
  }, 60_000);
  return namespace;
}

describe('AgentLastActivity', () => {
  it('moves on when a message arrives and when a turn ends, by the workflow clock', async () => {
    const thread = env.agents.thread(`activity-${randomUUID().slice(0, 8)}`, { config });
    const beforeSend = Date.now();
    await (await thread.send('hello')).result();
    const afterFirst = await lastActivityOf(thread.threadId);
    expect(afterFirst).toBeInstanceOf(Date);
    expect(afterFirst!.getTime()).toBeGreaterThanOrEqual(beforeSend - 1_000);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await (await thread.send('again')).result();
    const afterSecond = await lastActivityOf(thread.threadId);
    expect(afterSecond!.getTime()).toBeGreaterThan(afterFirst!.getTime() + 1_000);
    await recordHistory('thread-last-activity', thread.run);
    await thread.close();
  });

  it('lists threads idle for at least a duration, longest idle first', async () => {
    const resourceId = `activity-${randomUUID().slice(0, 8)}`;
    const older = env.agents.thread(`activity-older-${randomUUID().slice(0, 8)}`, { config, resourceId });
    await (await older.send('first')).result();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const newer = env.agents.thread(`activity-newer-${randomUUID().slice(0, 8)}`, { config, resourceId });
    await (await newer.send('second')).result();
    // Sent to the older thread last: its activity is now the newest, although it started first.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await (await older.send('third')).result();
    const olderActivity = await lastActivityOf(older.threadId);

    const sorted = await eventually(async () => {
      const listed = await env.agents.listThreads({ resourceId, sort: 'last-activity' });
      return listed.length === 2 && listed[1]!.lastActivity?.getTime() === olderActivity!.getTime() ? listed : undefined;
    });
    expect(sorted.map((entry) => entry.threadId)).toEqual([newer.threadId, older.threadId]);
    expect(sorted[0]).toMatchObject({ status: 'idle', open: true, lastActivity: expect.any(Date) });

    // Idle for longer than the middle of the two threads' last activities (1.1 s or more apart):
    // counted from now, not from a fixed pause, since on a busy machine the reads above take a while.
    const newerActivity = (await lastActivityOf(newer.threadId))!.getTime();
    const idleAWhile = await env.agents.listThreads({ resourceId, idleForMs: Date.now() - (newerActivity + olderActivity!.getTime()) / 2 });
    expect(idleAWhile.map((entry) => entry.threadId)).toEqual([newer.threadId]);
    expect(await env.agents.listThreads({ resourceId, idleForMs: 3_600_000 })).toEqual([]);
    await Promise.all([older.close(), newer.close()]);
  });

  it("reads `thread list`'s flags into a filter, and names each bad one", () => {
    expect(threadFilterOf({ idleFor: '7d', status: 'idle', sort: 'last-activity', limit: '5', resource: 'user:1' })).toEqual({
      idleForMs: 7 * 86_400_000,
      status: 'idle',
      sort: 'last-activity',
      limit: 5,
      resourceId: 'user:1',
    });
    const error = (() => {
      try {
        threadFilterOf({ idleFor: 'a while', status: 'sleeping', sort: 'newest', limit: '0' });
      } catch (caught) {
        return caught as { code: string; problems: string[] };
      }
    })();
    expect(error?.code).toBe(ErrorCode.agentConfigInvalid);
    expect(error?.problems).toEqual([
      "--status: must be one of idle, running, awaiting_approval, closed, not 'sleeping'",
      "--idle-for: 'a while' is not a duration such as 30m, 12h or 7d",
      "--sort: must be started or last-activity, not 'newest'",
      "--limit: must be a whole number of at least 1, not '0'",
    ]);
  });

  it('refuses a new thread in a namespace set up before the attribute, saying to rerun setup', async () => {
    const namespace = await namespaceWithoutLastActivity();
    const other = await createTestEnvironment({ tools: [], scripts, target: { ...resolveTemporalTarget(), namespace } });
    try {
      // A namespace just created may not be known to every service for a moment: only this error ends the wait.
      const error = await eventually(async () => {
        const sent = await other.agents
          .thread(`activity-${randomUUID().slice(0, 8)}`, { config })
          .send('hello')
          .then(
            () => null,
            (caught: unknown) => caught,
          );
        return sent instanceof SearchAttributesMissingError ? sent : undefined;
      }, 60_000);
      expect(error).toMatchObject({ code: ErrorCode.searchAttributesMissing });
      expect(error.message).toContain('AgentLastActivity');
      expect(error.message).toContain('durable-agents setup');
      await expect(other.agents.listThreads({ idleForMs: 60_000 })).rejects.toBeInstanceOf(SearchAttributesMissingError);

      // A thread an older client created there (without the attribute) keeps answering, and never sets it.
      const threadId = `activity-legacy-${randomUUID().slice(0, 8)}`;
      const parsed = parseAgentConfig(config);
      const input: AgentThreadInput = {
        config: parsed,
        configHash: configHashOf(parsed),
        settings: { policy: 'enqueue', idleTimeoutMs: null, resourceId: null },
      };
      const receipt = await other.client.workflow.executeUpdateWithStart(sendMessageUpdate, {
        args: [{ messageId: 'legacy-1', text: 'from an older client' }],
        startWorkflowOperation: new WithStartWorkflowOperation<typeof agentThread>(WireName.agentThreadWorkflow, {
          workflowId: threadId,
          taskQueue: other.taskQueue,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
          typedSearchAttributes: [
            { key: AgentNameAttribute, value: config.name },
            { key: AgentStatusAttribute, value: 'idle' },
          ],
        }),
      });
      const legacy = other.agents.thread(threadId);
      expect(await legacy.turn(receipt.turn).result()).toMatchObject({ output: 'Reply to from an older client' });
      expect(await (await legacy.send('still there?')).result()).toMatchObject({ turn: 2, output: 'Reply to still there?' });
      const described = await other.client.workflow.getHandle(threadId).describe();
      expect(described.typedSearchAttributes.get(AgentLastActivityAttribute)).toBeUndefined();
      expect(described.typedSearchAttributes.get(AgentStatusAttribute)).toBe('idle');
      await legacy.close();
    } finally {
      await other.close();
    }
  });
});
