// `durable-agents schedule …`: agents on a schedule (docs/schedules.md), over `agents.schedules`.
import path from 'node:path';
import { AgentClient } from '../../client/agent-client';
import type { AgentScheduleSummary, ScheduleAction, ScheduleCreateOptions, ScheduleOverlap } from '../../client/schedules/schedule-options';
import { loadAgentConfigFile, loadAgentDirectory } from '../../config/load-config';
import { ScheduleInvalidError } from '../../protocol/schedule-errors';

/** The flags of `schedule create`. */
export interface ScheduleCreateFlags {
  every?: string;
  cron?: string[];
  task?: string;
  config?: string;
  agent?: string;
  thread?: string;
  message?: string;
  resource?: string;
  overlap?: string;
  catchupWindow?: string;
  jitter?: string;
  timezone?: string;
  paused?: boolean;
  note?: string;
  json?: boolean;
  taskQueue?: string;
}

/** Flags every schedule command takes. */
interface CommonFlags {
  json?: boolean;
  taskQueue?: string;
  note?: string;
  overlap?: string;
}

/** `schedule create ID`: creates the schedule from the flags (checked before anything is sent) and prints it. */
export async function scheduleCreateCommand(scheduleId: string, flags: ScheduleCreateFlags): Promise<void> {
  const options = scheduleOptionsOf(flags);
  await withSchedules(flags, async (agents) => {
    const created = await agents.schedules.create(scheduleId, options);
    console.log(flags.json ? JSON.stringify(created) : `Created schedule ${scheduleId}\n${formatSchedule(created)}`);
  });
}

/** `schedule list`: every schedule with its spec, action, state and next fire times. */
export async function scheduleListCommand(flags: CommonFlags): Promise<void> {
  await withSchedules(flags, async (agents) => {
    const schedules = await agents.schedules.list();
    if (flags.json) console.log(JSON.stringify(schedules));
    else console.log(schedules.length === 0 ? 'No schedules.' : schedules.map(formatSchedule).join('\n'));
  });
}

/** `schedule show ID`: one schedule, with its policies and counts. */
export async function scheduleShowCommand(scheduleId: string, flags: CommonFlags): Promise<void> {
  await withSchedules(flags, async (agents) => {
    const schedule = await agents.schedules.describe(scheduleId);
    if (flags.json) return console.log(JSON.stringify(schedule));
    console.log(
      [
        formatSchedule(schedule),
        `  overlap ${schedule.overlap}, catch-up window ${schedule.catchupWindowMs / 1000}s${schedule.pauseOnFailure ? ', pauses on failure' : ''}`,
        `  fires taken ${schedule.actionsTaken}, skipped for overlap ${schedule.skippedOverlap}, missed the catch-up window ${schedule.missedCatchupWindow}`,
        ...(schedule.running.length > 0 ? [`  running: ${schedule.running.join(', ')}`] : []),
      ].join('\n'),
    );
  });
}

/** `schedule pause|resume|trigger|delete ID`: one change to a schedule. */
export async function scheduleChangeCommand(
  change: 'pause' | 'resume' | 'trigger' | 'delete',
  scheduleId: string,
  flags: CommonFlags,
): Promise<void> {
  await withSchedules(flags, async (agents) => {
    if (change === 'pause') await agents.schedules.pause(scheduleId, flags.note);
    else if (change === 'resume') await agents.schedules.resume(scheduleId, flags.note);
    else if (change === 'trigger') await agents.schedules.trigger(scheduleId, flags.overlap as ScheduleOverlap | undefined);
    else await agents.schedules.delete(scheduleId);
    const done = { pause: 'Paused', resume: 'Resumed', trigger: 'Triggered', delete: 'Deleted' }[change];
    console.log(flags.json ? JSON.stringify({ scheduleId, done: change }) : `${done} schedule ${scheduleId}`);
  });
}

/** `schedule runs ID`: the workflows the schedule started (by `TemporalScheduledById`), newest first. */
export async function scheduleRunsCommand(scheduleId: string, flags: CommonFlags): Promise<void> {
  await withSchedules(flags, async (agents) => {
    const runs = await agents.schedules.runsOf(scheduleId);
    if (flags.json) return console.log(JSON.stringify(runs));
    if (runs.length === 0) return console.log(`No runs of schedule ${scheduleId} yet.`);
    for (const run of runs) console.log(`${run.workflowId}  ${run.status.toLowerCase()}  ${run.startTime.toISOString()}`);
  });
}

/**
 * The schedule's options from `create`'s flags: `--every` and/or `--cron`, and either a run
 * (`--task` with `--config FILE` or `--agent NAME[@VERSION]`) or a thread post (`--thread ID
 * --message TEXT`, with `--config` to create the thread).
 * @throws ScheduleInvalidError naming the flag's option when the flags do not make one action.
 */
export function scheduleOptionsOf(flags: ScheduleCreateFlags): ScheduleCreateOptions {
  const spec = {
    ...(flags.cron && flags.cron.length > 0 ? { cron: flags.cron.length === 1 ? flags.cron[0]! : flags.cron } : {}),
    ...(flags.every !== undefined ? { every: flags.every } : {}),
    ...(flags.jitter !== undefined ? { jitter: flags.jitter } : {}),
    ...(flags.timezone !== undefined ? { timezone: flags.timezone } : {}),
  };
  return {
    spec,
    action: actionOf(flags),
    ...(flags.overlap !== undefined ? { overlap: flags.overlap as ScheduleOverlap } : {}),
    ...(flags.catchupWindow !== undefined ? { catchupWindow: flags.catchupWindow } : {}),
    ...(flags.paused ? { paused: true } : {}),
    ...(flags.note !== undefined ? { note: flags.note } : {}),
  };
}

function actionOf(flags: ScheduleCreateFlags): ScheduleAction {
  const config = flags.config ? loadAgentConfigFile(flags.config) : undefined;
  const agents = config && config.handoffs.length > 0 ? loadAgentDirectory(path.dirname(flags.config!)) : undefined;
  const agent = { ...(config ? { config } : {}), ...(agents ? { agents } : {}), ...(flags.resource ? { resourceId: flags.resource } : {}) };
  if (flags.thread !== undefined || flags.message !== undefined) {
    if (flags.task !== undefined)
      throw new ScheduleInvalidError('action.task', '--task starts runs; a thread schedule posts --message into --thread');
    return {
      kind: 'thread',
      threadId: flags.thread ?? '',
      text: flags.message ?? '',
      ...agent,
      ...(flags.agent ? { agent: flags.agent } : {}),
    } as ScheduleAction;
  }
  return { kind: 'run', task: flags.task ?? '', ...agent, ...(flags.agent ? { agent: flags.agent } : {}) };
}

/** One schedule in a few lines: id and state, when it fires, what it does, its next fires. */
export function formatSchedule(schedule: AgentScheduleSummary): string {
  const { spec, action } = schedule;
  const when = [
    ...spec.cron.map((expression) => `cron '${expression}'`),
    ...(spec.every ? [`every ${spec.every}${spec.offset ? ` (offset ${spec.offset})` : ''}`] : []),
    ...(spec.timezone ? [spec.timezone] : []),
    ...(spec.jitter ? [`jitter ${spec.jitter}`] : []),
  ].join(', ');
  const what =
    action.kind === 'run'
      ? `run ${action.agent}: ${action.task}`
      : action.kind === 'thread'
        ? `post to thread ${action.threadId}: ${action.text}`
        : `start ${action.workflowType}`;
  const state = schedule.paused ? `paused${schedule.note ? ` (${schedule.note})` : ''}` : 'active';
  const next = schedule.nextActionTimes.slice(0, 3).map((time) => time.toISOString());
  return [`${schedule.scheduleId}  ${state}`, `  when: ${when || '(no spec)'}`, `  does: ${what}`, `  next: ${next.join(', ') || '-'}`].join('\n');
}

async function withSchedules(flags: { taskQueue?: string }, work: (agents: AgentClient) => Promise<void>): Promise<void> {
  const agents = await AgentClient.connect(undefined, flags.taskQueue ? { taskQueue: flags.taskQueue } : {});
  try {
    await work(agents);
  } finally {
    await agents.close();
  }
}
