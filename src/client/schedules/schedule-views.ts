// A schedule as Temporal describes it, read back as `list` and `describe` show it (its spec and action from the memo this library writes).
import type { ScheduleDescription, ScheduleExecutionResult, ScheduleSummary } from '@temporalio/client';
import type { ScheduleSpec } from '@temporalio/client';
import { formatDuration } from '../../config/duration';
import type {
  AgentScheduleDescription,
  AgentScheduleSummary,
  ScheduleActionSummary,
  ScheduleSpecOptions,
  ScheduleSpecView,
} from './schedule-options';
import { overlapNameOf } from './schedule-validation';

/** The memo key under which a schedule keeps what its creator wrote: its spec and a summary of its action. */
const MEMO_KEY = 'agentSchedule';

interface ScheduleMemo {
  spec: ScheduleSpecView;
  action: ScheduleActionSummary;
}

/** The memo a new schedule keeps: its spec as written (Temporal turns cron expressions into calendars) and its action's summary. */
export function scheduleMemoOf(spec: ScheduleSpecOptions, action: ScheduleActionSummary): Record<string, unknown> {
  const cron = spec.cron === undefined ? [] : Array.isArray(spec.cron) ? spec.cron : [spec.cron];
  const view: ScheduleSpecView = {
    cron: cron.map((expression) => expression.trim()),
    ...(spec.every !== undefined ? { every: spec.every } : {}),
    ...(spec.offset !== undefined ? { offset: spec.offset } : {}),
    ...(spec.jitter !== undefined ? { jitter: spec.jitter } : {}),
    ...(spec.timezone !== undefined ? { timezone: spec.timezone } : {}),
  };
  return { [MEMO_KEY]: { spec: view, action } satisfies ScheduleMemo };
}

/** A listed schedule as `agents.schedules.list()` returns it. */
export function scheduleSummaryOf(schedule: ScheduleSummary): AgentScheduleSummary {
  const memo = schedule.memo?.[MEMO_KEY] as ScheduleMemo | undefined;
  return {
    scheduleId: schedule.scheduleId,
    spec: memo?.spec ?? specViewOf(schedule.spec),
    action: memo?.action ?? { kind: 'other', workflowType: schedule.action?.workflowType ?? '' },
    paused: schedule.state.paused,
    ...(schedule.state.note ? { note: schedule.state.note } : {}),
    nextActionTimes: schedule.info.nextActionTimes,
    recentActions: schedule.info.recentActions.map(recentAction),
  };
}

/** A described schedule as `agents.schedules.describe(id)` returns it. */
export function scheduleDescriptionOf(schedule: ScheduleDescription): AgentScheduleDescription {
  const summary = scheduleSummaryOf({ ...schedule, action: { type: 'startWorkflow', workflowType: schedule.action.workflowType } });
  return {
    ...summary,
    overlap: overlapNameOf(schedule.policies.overlap),
    catchupWindowMs: schedule.policies.catchupWindow,
    pauseOnFailure: schedule.policies.pauseOnFailure,
    actionsTaken: schedule.info.numActionsTaken,
    missedCatchupWindow: schedule.info.numActionsMissedCatchupWindow,
    skippedOverlap: schedule.info.numActionsSkippedOverlap,
    running: schedule.info.runningActions.map((action) => action.workflow.workflowId),
    createdAt: schedule.info.createdAt,
  };
}

/** The spec of a schedule this library did not create: its intervals (its calendars have no cron text). */
function specViewOf(
  spec: (Pick<ScheduleSpec, 'timezone'> & { intervals?: Array<{ every: number; offset: number }>; jitter?: number }) | undefined,
): ScheduleSpecView {
  const interval = spec?.intervals?.[0];
  return {
    cron: [],
    ...(interval ? { every: formatDuration(interval.every) } : {}),
    ...(interval?.offset ? { offset: formatDuration(interval.offset) } : {}),
    ...(spec?.jitter ? { jitter: formatDuration(spec.jitter) } : {}),
    ...(spec?.timezone ? { timezone: spec.timezone } : {}),
  };
}

function recentAction(result: ScheduleExecutionResult): AgentScheduleSummary['recentActions'][number] {
  return { scheduledAt: result.scheduledAt, takenAt: result.takenAt, workflowId: result.action.workflow.workflowId };
}
