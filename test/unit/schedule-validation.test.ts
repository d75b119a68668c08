import { describe, expect, it } from '@jest/globals';
import { assertCronExpression } from '../../src/client/schedules/cron-expressions';
import { scheduleActionOf } from '../../src/client/schedules/schedule-actions';
import { assertScheduleId, overlapPolicyOf, schedulePoliciesOf, scheduleSpecOf } from '../../src/client/schedules/schedule-validation';
import { scheduleOptionsOf } from '../../src/cli/commands/schedule-command';
import { ErrorCode } from '../../src/protocol/errors';
import { WireName } from '../../src/protocol/wire-names';

/** What `check` threw: its code and field (null if it did not throw). */
function refusal(check: () => unknown): { code?: string; field?: string } | null {
  try {
    check();
    return null;
  } catch (error) {
    return { code: (error as { code?: string }).code, field: (error as { field?: string }).field };
  }
}

const invalid = (field: string) => ({ code: ErrorCode.scheduleInvalid, field });

describe('cron expressions of a schedule', () => {
  it.each(['0 9 * * 1-5', '*/15 * * * *', '0 12 * * MON-WED,FRI', '@daily', '@Hourly', ' 0 0 1 1 * '])('accepts %j', (expression) => {
    expect(refusal(() => assertCronExpression(expression, 'spec.cron'))).toBeNull();
  });

  it.each([
    ['61 * * * *', 'a minute out of range'],
    ['0 0 31 2 *', 'a day February never has'],
    ['0 0 * * 8', 'a weekday out of range'],
    ['* * *', 'three fields'],
    ['0 0 1 1 * 2030', 'six fields'],
    ['@every 1h', '@every (spec.every says it)'],
    ['CRON_TZ=Europe/Paris 0 9 * * *', 'a time zone prefix (spec.timezone says it)'],
    ['@fortnightly', 'an unknown named schedule'],
    ['', 'nothing'],
  ])('refuses %j (%s), naming the field', (expression) => {
    expect(refusal(() => assertCronExpression(expression, 'spec.cron[2]'))).toEqual(invalid('spec.cron[2]'));
  });
});

describe("a schedule's spec and policies", () => {
  it("turns cron, interval, offset, jitter and the time window into Temporal's spec", () => {
    expect(
      scheduleSpecOf({ cron: '0 9 * * 1-5', every: '1d', offset: '9h', jitter: '30s', timezone: 'Europe/Paris', startAt: '2030-01-01T00:00:00Z' }),
    ).toEqual({
      cronExpressions: ['0 9 * * 1-5'],
      intervals: [{ every: 86_400_000, offset: 32_400_000 }],
      jitter: 30_000,
      timezone: 'Europe/Paris',
      startAt: new Date('2030-01-01T00:00:00Z'),
    });
  });

  it.each([
    [{}, 'spec'],
    [{ cron: [] }, 'spec'],
    [{ every: '500ms' }, 'spec.every'],
    [{ every: 'hourly' }, 'spec.every'],
    [{ cron: '@daily', offset: '5m' }, 'spec.offset'],
    [{ every: '1h', offset: '2h' }, 'spec.offset'],
    [{ every: '1h', jitter: 'a bit' }, 'spec.jitter'],
    [{ every: '1h', timezone: 'Nowhere/City' }, 'spec.timezone'],
    [{ every: '1h', startAt: 'tomorrow' }, 'spec.startAt'],
    [{ every: '1h', startAt: '2030-01-02', endAt: '2030-01-01' }, 'spec.endAt'],
  ])('refuses %j, naming %s', (spec, field) => {
    expect(refusal(() => scheduleSpecOf(spec))).toEqual(invalid(field));
  });

  it('maps overlap policies and refuses unknown ones, short catch-up windows and a non-boolean pauseOnFailure', () => {
    expect(schedulePoliciesOf({})).toEqual({ overlap: 'SKIP', pauseOnFailure: false });
    expect(schedulePoliciesOf({ overlap: 'buffer_all', catchupWindow: '10m', pauseOnFailure: true })).toEqual({
      overlap: 'BUFFER_ALL',
      catchupWindow: 600_000,
      pauseOnFailure: true,
    });
    expect(overlapPolicyOf('terminate_other')).toBe('TERMINATE_OTHER');
    expect(refusal(() => overlapPolicyOf('SKIP'))).toEqual(invalid('overlap'));
    expect(refusal(() => schedulePoliciesOf({ catchupWindow: '9s' }))).toEqual(invalid('catchupWindow'));
    expect(refusal(() => schedulePoliciesOf({ pauseOnFailure: 'yes' as never }))).toEqual(invalid('pauseOnFailure'));
  });

  it.each(['', 'has space', "it's", 'x'.repeat(101)])('refuses the schedule id %j', (scheduleId) => {
    expect(refusal(() => assertScheduleId(scheduleId))).toEqual(invalid('scheduleId'));
  });
});

describe("a schedule's action", () => {
  const config = { name: 'reporter', model: 'scripted:any' };

  it('starts an agentRun with the prepared config, the run search attributes and a summary', () => {
    const { action, summary } = scheduleActionOf('daily', 'queue-a', { kind: 'run', config, task: 'Report  on\nyesterday' });
    expect(action).toMatchObject({
      type: 'startWorkflow',
      workflowType: WireName.agentRunWorkflow,
      workflowId: 'daily',
      taskQueue: 'queue-a',
      staticSummary: 'schedule daily: reporter: Report on yesterday',
    });
    expect((action.args as Array<{ config: { name: string; max_steps: number } }>)[0]!.config).toMatchObject({ name: 'reporter', max_steps: 10 });
    expect(action.typedSearchAttributes).toEqual([
      expect.objectContaining({ value: 'reporter' }),
      expect.objectContaining({ value: 'running' }),
      expect.objectContaining({ value: 0 }),
    ]);
    expect(summary).toEqual({ kind: 'run', workflowType: WireName.agentRunWorkflow, agent: 'reporter', task: 'Report on yesterday' });
  });

  it('starts a named agent without a config: the workers resolve it at each fire', () => {
    const { action, summary } = scheduleActionOf('daily', 'queue-a', {
      kind: 'run',
      agent: 'support@release-42',
      task: 'Triage',
      resourceId: 'team:7',
    });
    expect(action.args).toEqual([{ agent: { name: 'support', version: 'release-42' }, task: 'Triage', resourceId: 'team:7' }]);
    expect(summary.agent).toBe('support@release-42');
    const byReference = scheduleActionOf('daily', 'queue-a', {
      kind: 'run',
      agent: { name: 'support', overrides: { model: 'openai:gpt-4o' } },
      task: 'Triage',
    });
    expect(byReference.action.args).toEqual([{ agent: { name: 'support', overrides: { model: 'openai:gpt-4o' } }, task: 'Triage' }]);
  });

  it('posts into a thread, with the creation prepared when a config is given', () => {
    const { action, summary } = scheduleActionOf('digest', 'queue-a', { kind: 'thread', threadId: 'team-digest', text: 'Digest?', config });
    const [input] = action.args as Array<{ threadId: string; text: string; configHash: string; creation: { input: { config: { name: string } } } }>;
    expect(action).toMatchObject({ workflowType: WireName.scheduledThreadPostWorkflow, workflowId: 'digest', taskQueue: 'queue-a' });
    expect(input).toMatchObject({
      threadId: 'team-digest',
      text: 'Digest?',
      configHash: expect.any(String),
      creation: { input: { config: { name: 'reporter' } } },
    });
    expect(summary).toEqual({
      kind: 'thread',
      workflowType: WireName.scheduledThreadPostWorkflow,
      threadId: 'team-digest',
      text: 'Digest?',
      agent: 'reporter',
    });
    const existing = scheduleActionOf('digest', 'queue-a', { kind: 'thread', threadId: 'team-digest', text: 'Digest?' });
    expect(existing.action.args).toEqual([{ threadId: 'team-digest', text: 'Digest?' }]);
  });

  it.each([
    [{ kind: 'run', config, task: '' }, 'action.task'],
    [{ kind: 'run', config, agent: 'support', task: 'x' }, 'action.config'],
    [{ kind: 'run', task: 'x' }, 'action.config'],
    [{ kind: 'run', config: { name: 'x', max_steps: 0 }, task: 'x' }, 'action.config'],
    [{ kind: 'run', config: { name: 'x', memory: true }, task: 'x' }, 'action.config'],
    [{ kind: 'run', agent: 'a@b@c', task: 'x' }, 'action.agent'],
    [{ kind: 'run', agent: { name: '' }, task: 'x' }, 'action.agent'],
    [{ kind: 'thread', threadId: '', text: 'x' }, 'action.threadId'],
    [{ kind: 'thread', threadId: 't', text: '' }, 'action.text'],
    [{ kind: 'thread', threadId: 't', text: 'x', agent: 'support', config: { name: 'support' } }, 'action.agent'],
    [{ kind: 'thread', threadId: 't', text: 'x', agent: 'a@b@c' }, 'action.agent'],
    [{ kind: 'mail' }, 'action.kind'],
  ])('refuses %j, naming %s', (action, field) => {
    expect(refusal(() => scheduleActionOf('s', 'q', action as never))).toEqual(invalid(field));
  });
});

describe('the flags of `schedule create`', () => {
  it('make a run schedule or a thread schedule', () => {
    expect(scheduleOptionsOf({ every: '1h', cron: ['0 9 * * *'], task: 'Tick', agent: 'ticker', overlap: 'buffer_one', paused: true })).toEqual({
      spec: { cron: '0 9 * * *', every: '1h' },
      action: { kind: 'run', task: 'Tick', agent: 'ticker' },
      overlap: 'buffer_one',
      paused: true,
    });
    expect(scheduleOptionsOf({ cron: ['@daily', '0 12 * * *'], thread: 'digest', message: 'Digest?' })).toEqual({
      spec: { cron: ['@daily', '0 12 * * *'] },
      action: { kind: 'thread', threadId: 'digest', text: 'Digest?' },
    });
    expect(refusal(() => scheduleOptionsOf({ every: '1h', thread: 'digest', message: 'x', task: 'y' }))).toEqual(invalid('action.task'));
  });
});
