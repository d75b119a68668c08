import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { defineAgent } from '../src/agents/define-agent';
import { AgentClient } from '../src/client/agent-client';
import type { ScheduleCreateOptions } from '../src/client/schedules/schedule-options';
import { ErrorCode } from '../src/protocol/errors';
import type { ThreadPostReceipt } from '../src/protocol/schedule-types';
import { WireName } from '../src/protocol/wire-names';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Agents on a schedule (issue #42 item 5), on the real dev server: a 2-second schedule that fires
 * runs found by `TemporalScheduledById`, pauses, resumes, fires when triggered and is deleted; fires
 * that pile up while the worker is down run once it is back; a thread schedule whose fires become
 * the thread's turns, each once; every bad input refused with its code and nothing created.
 */

const testTools = createTestTools();
const scripts = {
  'sched-tick': { replies: [{ text: 'tick done' }] },
  'sched-digest': { replies: Array.from({ length: 60 }, () => ({ text: 'Digest: {{user}}' })) },
};
const ticker = { name: 'sched-ticker', model: 'scripted:sched-tick' };
let env: TestEnvironment;
const created: string[] = [];

/** A schedule id of this file, deleted after the tests if a test left it. */
function scheduleIdOf(name: string): string {
  const scheduleId = `sched-${name}-${randomUUID().slice(0, 8)}`;
  created.push(scheduleId);
  return scheduleId;
}

/** The code of what `promise` threw (null if it did not throw). */
async function codeOf(promise: Promise<unknown>): Promise<{ code?: string; field?: string } | null> {
  return promise.then(
    () => null,
    (error: unknown) => ({ code: (error as { code?: string }).code, field: (error as { field?: string }).field }),
  );
}

beforeAll(async () => {
  env = await createTestEnvironment({ tools: testTools.tools, scripts });
});

afterAll(async () => {
  for (const scheduleId of created) await env?.agents.schedules.delete(scheduleId).catch(() => undefined);
  await env?.close();
});

describe('a schedule of agent runs', () => {
  it('fires every 2 s, pauses (no fire while paused), fires when triggered, resumes and is deleted', async () => {
    const { schedules } = env.agents;
    const scheduleId = scheduleIdOf('tick');
    const description = await schedules.create(scheduleId, { spec: { every: '2s' }, action: { kind: 'run', config: ticker, task: 'Tick' } });
    expect(description).toMatchObject({
      scheduleId,
      paused: false,
      overlap: 'skip',
      spec: { cron: [], every: '2s' },
      action: { kind: 'run', workflowType: WireName.agentRunWorkflow, agent: 'sched-ticker', task: 'Tick' },
    });
    expect(description.nextActionTimes.length).toBeGreaterThan(0);

    // Runs complete and are found by the search attribute naming their schedule.
    const fired = await eventually(async () => {
      const runs = await schedules.runsOf(scheduleId);
      return runs.filter((run) => run.status === 'COMPLETED').length >= 2 ? runs : undefined;
    }, 90_000);
    for (const run of fired.filter((each) => each.status === 'COMPLETED')) {
      expect(run.workflowId.startsWith(`${scheduleId}-`)).toBe(true);
      expect((await env.agents.getRun(run.workflowId).result()).output).toBe('tick done');
    }
    const listed = await eventually(async () => (await schedules.list()).find((schedule) => schedule.scheduleId === scheduleId), 60_000);
    expect(listed).toMatchObject({ paused: false, action: { kind: 'run', agent: 'sched-ticker' } });
    expect(listed.nextActionTimes[0]!.getTime()).toBeGreaterThan(Date.now() - 10_000);

    // Paused: once its running fire is done, no new fire in 6 s (three intervals).
    await schedules.pause(scheduleId, 'quiet hours');
    const paused = await eventually(async () => {
      const now = await schedules.describe(scheduleId);
      return now.paused && now.running.length === 0 ? now : undefined;
    }, 60_000);
    expect(paused.note).toBe('quiet hours');
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect((await schedules.describe(scheduleId)).actionsTaken).toBe(paused.actionsTaken);

    // Triggered while paused: one fire now.
    await schedules.trigger(scheduleId);
    await eventually(async () => (await schedules.describe(scheduleId)).actionsTaken === paused.actionsTaken + 1, 30_000);
    expect((await schedules.describe(scheduleId)).paused).toBe(true);

    // Resumed: it fires again on its own.
    await schedules.resume(scheduleId);
    await eventually(async () => {
      const now = await schedules.describe(scheduleId);
      return !now.paused && now.actionsTaken >= paused.actionsTaken + 3;
    }, 60_000);

    await schedules.delete(scheduleId);
    expect(await codeOf(schedules.describe(scheduleId))).toMatchObject({ code: ErrorCode.scheduleNotFound });
    // The runs outlive their schedule.
    expect((await schedules.runsOf(scheduleId)).length).toBeGreaterThanOrEqual(fired.length);
  }, 300_000);

  it('starts a named agent the workers define, resolved at each fire', async () => {
    const taskQueue = `sched-named-${randomUUID()}`;
    const agents = new AgentClient(env.client, { taskQueue, namespace: env.agents.namespace, uiUrl: null });
    const worker = await createTestEnvironment({
      tools: testTools.tools,
      scripts,
      taskQueue,
      agents: [defineAgent({ config: ticker, label: 'r1' })],
    });
    const scheduleId = scheduleIdOf('named');
    try {
      const description = await agents.schedules.create(scheduleId, {
        spec: { every: '1h' },
        action: { kind: 'run', agent: 'sched-ticker@r1', task: 'Tick' },
      });
      expect(description.action).toEqual({ kind: 'run', workflowType: WireName.agentRunWorkflow, agent: 'sched-ticker@r1', task: 'Tick' });
      await agents.schedules.trigger(scheduleId);
      const [run] = await eventually(async () => {
        const runs = await agents.schedules.runsOf(scheduleId);
        return runs.length === 1 && runs[0]!.status === 'COMPLETED' ? runs : undefined;
      }, 90_000);
      expect((await agents.getRun(run!.workflowId).result()).output).toBe('tick done');

      // A thread schedule by name: its first fire creates a thread that follows the agent.
      const threadScheduleId = scheduleIdOf('named-thread');
      const threadId = `sched-named-thread-${randomUUID().slice(0, 8)}`;
      await agents.schedules.create(threadScheduleId, {
        spec: { every: '1h' },
        action: { kind: 'thread', threadId, text: 'Tick', agent: 'sched-ticker' },
      });
      await agents.schedules.trigger(threadScheduleId);
      const status = await eventually(async () => {
        const now = await agents
          .thread(threadId)
          .status()
          .catch(() => undefined);
        return now && now.turnsCompleted === 1 ? now : undefined;
      }, 90_000);
      expect(status.recentTurns[0]).toMatchObject({ output: 'tick done', agentVersion: { name: 'sched-ticker', label: 'r1' } });
      await agents.schedules.delete(threadScheduleId);
    } finally {
      await agents.schedules.delete(scheduleId).catch(() => undefined);
      await worker.close();
    }
  }, 180_000);

  it('catches up after a worker outage: fires buffered while no worker ran all complete once it is back', async () => {
    const taskQueue = `sched-outage-${randomUUID()}`;
    const agents = new AgentClient(env.client, { taskQueue, namespace: env.agents.namespace, uiUrl: null });
    const scheduleId = scheduleIdOf('outage');
    let worker = await createTestEnvironment({ tools: testTools.tools, scripts, taskQueue });
    try {
      await agents.schedules.create(scheduleId, {
        spec: { every: '2s' },
        action: { kind: 'run', config: ticker, task: 'Tick' },
        overlap: 'buffer_all',
      });
      await eventually(async () => (await agents.schedules.runsOf(scheduleId)).some((run) => run.status === 'COMPLETED'), 90_000);

      await worker.close();
      // No worker: the fire that started waits for one, and the later fires are buffered behind it.
      const handle = env.client.schedule.getHandle(scheduleId);
      await eventually(async () => Number((await handle.describe()).raw.info?.bufferSize ?? 0) >= 3, 60_000);
      const taken = (await agents.schedules.describe(scheduleId)).actionsTaken;

      worker = await createTestEnvironment({ tools: testTools.tools, scripts, taskQueue });
      // Back: the waiting fire and the buffered ones run, one after another.
      await eventually(async () => (await agents.schedules.describe(scheduleId)).actionsTaken >= taken + 3, 120_000);
      await agents.schedules.pause(scheduleId);
      const runs = await eventually(async () => {
        const all = await agents.schedules.runsOf(scheduleId);
        return all.length >= taken + 3 && all.every((run) => run.status === 'COMPLETED') ? all : undefined;
      }, 120_000);
      for (const run of runs) expect((await agents.getRun(run.workflowId).result()).output).toBe('tick done');
    } finally {
      await agents.schedules.delete(scheduleId).catch(() => undefined);
      await worker.close();
    }
  }, 400_000);
});

describe('a schedule that posts into a thread', () => {
  it('makes each fire one turn of the thread, answered once, and a post sent again is not added twice', async () => {
    const { schedules } = env.agents;
    const scheduleId = scheduleIdOf('digest');
    const threadId = `sched-digest-thread-${randomUUID().slice(0, 8)}`;
    const description = await schedules.create(scheduleId, {
      spec: { every: '2s' },
      action: { kind: 'thread', threadId, text: 'Daily digest, please', config: { name: 'sched-digest', model: 'scripted:sched-digest' } },
    });
    expect(description.action).toEqual({
      kind: 'thread',
      workflowType: WireName.scheduledThreadPostWorkflow,
      threadId,
      text: 'Daily digest, please',
      agent: 'sched-digest',
    });
    await eventually(async () => (await schedules.runsOf(scheduleId)).filter((run) => run.status === 'COMPLETED').length >= 3, 90_000);
    await schedules.pause(scheduleId);
    await eventually(async () => (await schedules.describe(scheduleId)).running.length === 0, 60_000);
    const taken = (await schedules.describe(scheduleId)).actionsTaken;
    const posts = await eventually(async () => {
      const all = await schedules.runsOf(scheduleId);
      return all.length === taken && all.every((run) => run.status === 'COMPLETED') ? all : undefined;
    }, 60_000);

    const receipts: ThreadPostReceipt[] = [];
    for (const post of posts) receipts.push((await env.client.workflow.getHandle(post.workflowId).result()) as ThreadPostReceipt);
    expect(receipts.every((receipt) => receipt.threadId === threadId && !receipt.duplicate)).toBe(true);
    expect(new Set(receipts.map((receipt) => receipt.messageId))).toEqual(new Set(posts.map((post) => `scheduled:${post.workflowId}`)));
    expect(new Set(receipts.map((receipt) => receipt.turn)).size).toBe(posts.length);

    const thread = env.agents.thread(threadId);
    const status = await eventually(async () => {
      const now = await thread.status();
      return now.turnsCompleted >= posts.length && now.phase === 'idle' ? now : undefined;
    }, 90_000);
    expect(status.turnsCompleted).toBe(posts.length);
    const { turns } = await thread.history();
    expect(turns.map((turn) => turn.messages.map((message) => message.text))).toEqual(posts.map(() => ['Daily digest, please']));
    expect(turns.every((turn) => turn.result?.output === 'Digest: Daily digest, please')).toBe(true);

    // The same fire posted again (a retried activity, a replayed start): the thread's first receipt, no new turn.
    const first = posts.at(-1)!;
    const again = (await env.client.workflow.execute(WireName.scheduledThreadPostWorkflow, {
      workflowId: first.workflowId,
      taskQueue: env.taskQueue,
      args: [{ threadId, text: 'Daily digest, please' }],
    })) as ThreadPostReceipt;
    const original = receipts[posts.indexOf(first)]!;
    // Temporal answers the repeated update id with the first post's receipt (a thread that moved to
    // a new execution would answer `duplicate: true` from the message ids it remembers): either way,
    // the same turn.
    expect({ messageId: again.messageId, turn: again.turn }).toEqual({ messageId: original.messageId, turn: original.turn });
    expect((await thread.status()).turnsCompleted).toBe(posts.length);
    await recordHistory('schedule-thread-post', env.agents.getRun(posts[0]!.workflowId));

    await schedules.delete(scheduleId);
    await thread.close();
  }, 300_000);
});

describe('bad schedule input', () => {
  const run = { kind: 'run' as const, config: ticker, task: 'Tick' };
  const cases: Array<[string, string, Partial<ScheduleCreateOptions> & Record<string, unknown>]> = [
    ['a cron expression out of range', 'spec.cron', { spec: { cron: '61 * * * *' } }],
    ['a cron expression with three fields', 'spec.cron', { spec: { cron: '* * *' } }],
    ['a second cron expression that is not one', 'spec.cron[1]', { spec: { cron: ['0 9 * * *', 'every day'] } }],
    ['@every instead of spec.every', 'spec.cron', { spec: { cron: '@every 1h' } }],
    ['no cron and no interval', 'spec', { spec: {} }],
    ['an interval that is not a duration', 'spec.every', { spec: { every: 'soon' } }],
    ['an offset as long as the interval', 'spec.offset', { spec: { every: '1h', offset: '1h' } }],
    ['an unknown time zone', 'spec.timezone', { spec: { cron: '0 9 * * *', timezone: 'Mars/Olympus' } }],
    ['an unknown overlap policy', 'overlap', { overlap: 'sometimes' as never }],
    ['a catch-up window under 10 s', 'catchupWindow', { catchupWindow: '5s' }],
    ['a blank task', 'action.task', { action: { ...run, task: '   ' } }],
    ['both a config and an agent', 'action.config', { action: { ...run, agent: 'support' } }],
    ['neither a config nor an agent', 'action.config', { action: { kind: 'run', task: 'Tick' } }],
    ['an invalid config', 'action.config', { action: { ...run, config: { name: 'bad', temperature: 9 } } }],
    ['an agent name that is not one', 'action.agent', { action: { kind: 'run', task: 'Tick', agent: 'support@' } }],
    ['a blank thread message', 'action.text', { action: { kind: 'thread', threadId: 'sched-t', text: ' ' } }],
    ['an unknown kind of action', 'action.kind', { action: { kind: 'email' } as never }],
  ];

  it.each(cases)('refuses %s (ScheduleInvalid, field %s) and creates nothing', async (_what, field, options) => {
    const scheduleId = scheduleIdOf('bad');
    const refused = await codeOf(
      env.agents.schedules.create(scheduleId, { spec: { every: '1h' }, action: run, ...options } as ScheduleCreateOptions),
    );
    expect(refused).toEqual({ code: ErrorCode.scheduleInvalid, field });
    expect(await codeOf(env.agents.schedules.describe(scheduleId))).toMatchObject({ code: ErrorCode.scheduleNotFound });
  });

  it('leaves a schedule as it was when it is created again, with bad options or good, or triggered with a bad policy', async () => {
    const { schedules } = env.agents;
    const scheduleId = scheduleIdOf('kept');
    const before = await schedules.create(scheduleId, {
      spec: { cron: '0 9 * * 1-5', timezone: 'Europe/Paris' },
      action: run,
      paused: true,
      note: 'kept',
    });
    expect(before.spec).toEqual({ cron: ['0 9 * * 1-5'], timezone: 'Europe/Paris' });
    expect(await codeOf(schedules.create(scheduleId, { spec: { cron: '0 25 * * *' }, action: run }))).toEqual({
      code: ErrorCode.scheduleInvalid,
      field: 'spec.cron',
    });
    expect(await codeOf(schedules.create(scheduleId, { spec: { every: '2s' }, action: run }))).toMatchObject({ code: ErrorCode.scheduleExists });
    expect(await codeOf(schedules.trigger(scheduleId, 'now' as never))).toEqual({ code: ErrorCode.scheduleInvalid, field: 'overlap' });
    const after = await schedules.describe(scheduleId);
    expect({ ...after, nextActionTimes: [] }).toEqual({ ...before, nextActionTimes: [] });
    expect(after.actionsTaken).toBe(0);
    await schedules.delete(scheduleId);
  });

  it('says ScheduleNotFound for every change to an unknown id', async () => {
    const { schedules } = env.agents;
    const scheduleId = `sched-none-${randomUUID().slice(0, 8)}`;
    const changes = [
      () => schedules.describe(scheduleId),
      () => schedules.pause(scheduleId),
      () => schedules.resume(scheduleId),
      () => schedules.trigger(scheduleId),
      () => schedules.delete(scheduleId),
    ];
    for (const change of changes) expect(await codeOf(change())).toMatchObject({ code: ErrorCode.scheduleNotFound });
  });
});

describe('durable-agents schedule', () => {
  it('creates, lists, shows, pauses, resumes, triggers, lists the runs of and deletes a schedule; refuses a bad cron with exit 2', async () => {
    const scheduleId = scheduleIdOf('cli');
    const queue = ['--task-queue', env.taskQueue];
    const configFile = path.join(os.tmpdir(), `${scheduleId}.yaml`);
    writeFileSync(configFile, `name: sched-ticker\nmodel: scripted:sched-tick\n`);
    const bad = await runCli(['schedule', 'create', scheduleId, '--cron', '0 9 * * 8', '--task', 'Tick', '--config', configFile, ...queue]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('spec.cron');
    const made = await runCli([
      'schedule',
      'create',
      scheduleId,
      '--every',
      '1h',
      '--task',
      'Tick',
      '--config',
      configFile,
      '--paused',
      '--json',
      ...queue,
    ]);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({
      scheduleId,
      paused: true,
      spec: { every: '1h' },
      action: { kind: 'run', agent: 'sched-ticker' },
    });
    const listed = await eventually(async () => {
      const result = await runCli(['schedule', 'list', '--json']);
      return (JSON.parse(result.stdout) as Array<{ scheduleId: string }>).find((schedule) => schedule.scheduleId === scheduleId);
    }, 60_000);
    expect(listed).toMatchObject({ paused: true });
    const shown = await runCli(['schedule', 'show', scheduleId]);
    expect(shown.stdout).toContain(`${scheduleId}  paused`);
    expect(shown.stdout).toContain('does: run sched-ticker: Tick');
    expect((await runCli(['schedule', 'resume', scheduleId])).code).toBe(0);
    expect((await runCli(['schedule', 'pause', scheduleId, '--note', 'by cli'])).code).toBe(0);
    expect(JSON.parse((await runCli(['schedule', 'show', scheduleId, '--json'])).stdout)).toMatchObject({ paused: true, note: 'by cli' });
    expect((await runCli(['schedule', 'trigger', scheduleId])).code).toBe(0);
    const runs = await eventually(async () => {
      const result = await runCli(['schedule', 'runs', scheduleId, '--json']);
      const all = JSON.parse(result.stdout) as Array<{ status: string }>;
      return all.length === 1 && all[0]!.status === 'COMPLETED' ? all : undefined;
    }, 90_000);
    expect(runs).toHaveLength(1);
    expect((await runCli(['schedule', 'delete', scheduleId])).code).toBe(0);
    const gone = await runCli(['schedule', 'show', scheduleId]);
    expect({ code: gone.code, named: gone.stderr.includes(scheduleId) }).toEqual({ code: 2, named: true });
    rmSync(configFile, { force: true });
  }, 240_000);
});
