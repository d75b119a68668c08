// What a caller gives `agents.schedules.create` and gets back from `list` / `describe`.
import type { AgentConfig, AgentConfigInput } from '../../config/agent-config';
import type { AgentReference } from '../../protocol/agent-reference';
import type { RunTimeouts } from '../../protocol/run-types';

/**
 * What a fire does while the previous fire's workflow still runs (Temporal's overlap policies):
 * `skip` (default) drops it, `buffer_one` keeps one to start after, `buffer_all` keeps them all and
 * starts them one after another, `cancel_other` cancels the running one first, `terminate_other`
 * terminates it, `allow_all` starts it alongside.
 * @example
 * if (!SCHEDULE_OVERLAP_POLICIES.includes(flag as ScheduleOverlap)) console.error(`--overlap: one of ${SCHEDULE_OVERLAP_POLICIES.join(', ')}`);
 */
export const SCHEDULE_OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
/** One of `SCHEDULE_OVERLAP_POLICIES`. */
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAP_POLICIES)[number];

/**
 * When a schedule fires: the union of its cron expressions and its interval (at least one of them).
 * Durations are written as in configs: `500ms`, `2s`, `15m`, `4h`, `1d`.
 */
export interface ScheduleSpecOptions {
  /**
   * Five-field cron expressions (`minute hour day-of-month month day-of-week`, `0 9 * * 1-5`), or
   * a named shortcut: `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`.
   * Not accepted: `@every …` (use `every`) and a `CRON_TZ=` prefix (use `timezone`).
   */
  cron?: string | string[];
  /** A fixed interval (at least `1s`), counted from the Unix epoch plus `offset`: `every: '1h'` fires on the hour. */
  every?: string;
  /** Shifts the interval's fires (`every: '1d', offset: '9h'` fires at 09:00 UTC); less than `every`. */
  offset?: string;
  /** Each fire is delayed by a random time up to this much (spreads schedules that fire at once). */
  jitter?: string;
  /** An IANA time zone the cron expressions are read in (`Europe/Paris`); default UTC. */
  timezone?: string;
  /** No fire before this time. */
  startAt?: Date | string;
  /** No fire after this time. */
  endAt?: Date | string;
}

/** Fields both kinds of action share: where the agent comes from. */
interface ScheduledAgent {
  /** An inline agent config, validated (with its handoff `agents`) when the schedule is created. */
  config?: AgentConfigInput | AgentConfig;
  /** Configs of the agents `config` may hand off to, by name. */
  agents?: Record<string, AgentConfigInput | AgentConfig>;
  /**
   * Instead of `config`: a named agent the workers define (`name`, `name@version`, or an
   * `AgentReference`), resolved by the workers at each fire (a run) or each turn (a thread).
   */
  agent?: string | AgentReference;
  /** The resource (a user, a team) the runs or the thread are for (`AgentResource`, the memory tools' scope). */
  resourceId?: string;
}

/**
 * Each fire starts an agent run (an `agentRun` workflow on the client's task queue) with `task`.
 * Exactly one of `config` (inline) and `agent` (a named agent the workers define: `name` or
 * `name@version`, or an `AgentReference`; resolved by the workers at each fire).
 */
export interface ScheduledRunAction extends ScheduledAgent {
  kind: 'run';
  task: string;
  timeouts?: Partial<RunTimeouts>;
}

/**
 * Each fire posts `text` into the thread `threadId` as a user message (a daily digest
 * conversation): the thread answers it in a turn, each fire once. With a `config` or an `agent`,
 * the first fire creates the thread (a named one follows its agent's newest definition); without
 * either, the thread must exist.
 */
export interface ScheduledThreadAction extends ScheduledAgent {
  kind: 'thread';
  threadId: string;
  text: string;
}

/** What each fire of a schedule does: start a run, or post into a thread. */
export type ScheduleAction = ScheduledRunAction | ScheduledThreadAction;

/** A new schedule: when it fires, what each fire does, and how missed or overlapping fires are handled. */
export interface ScheduleCreateOptions {
  spec: ScheduleSpecOptions;
  action: ScheduleAction;
  /** What a fire does while the previous fire's workflow still runs. Default `skip`. */
  overlap?: ScheduleOverlap;
  /**
   * How late a missed fire may still be taken (after the server or the schedule was unavailable),
   * at least `10s`. Default: Temporal's (one year).
   */
  catchupWindow?: string;
  /** Pause the schedule when a fire's workflow fails (or times out). Default false. */
  pauseOnFailure?: boolean;
  /** Create it paused. */
  paused?: boolean;
  /** A note kept with the schedule's state (why it is paused, who made it). */
  note?: string;
}

/** What a schedule's fires do, as `list` and `describe` show it (from the schedule's memo). */
export interface ScheduleActionSummary {
  /** `other`: a schedule this library did not create (no memo of ours). */
  kind: 'run' | 'thread' | 'other';
  workflowType: string;
  /** The agent: `name`, `name@version`, or the inline config's name. */
  agent?: string;
  task?: string;
  threadId?: string;
  text?: string;
}

/** A schedule's spec as `list` and `describe` show it: cron expressions and durations as written. */
export interface ScheduleSpecView {
  cron: string[];
  every?: string;
  offset?: string;
  jitter?: string;
  timezone?: string;
}

/** A schedule as `list` shows it. */
export interface AgentScheduleSummary {
  scheduleId: string;
  /** When it fires, as it was written (Temporal keeps cron expressions only as calendars). */
  spec: ScheduleSpecView;
  action: ScheduleActionSummary;
  paused: boolean;
  note?: string;
  /** The next fire times Temporal computed (the next few). */
  nextActionTimes: Date[];
  /** The latest fires: when each was due, when it was taken, the workflow it started. */
  recentActions: Array<{ scheduledAt: Date; takenAt: Date; workflowId: string }>;
}

/** A schedule as `describe` shows it: its summary, its policies and its counts. */
export interface AgentScheduleDescription extends AgentScheduleSummary {
  overlap: ScheduleOverlap;
  catchupWindowMs: number;
  pauseOnFailure: boolean;
  actionsTaken: number;
  missedCatchupWindow: number;
  skippedOverlap: number;
  /** Workflows of this schedule running now. */
  running: string[];
  createdAt: Date;
}

/** A run (or a thread post) a schedule started, found by `TemporalScheduledById`. */
export interface ScheduledRun {
  workflowId: string;
  runId: string;
  workflowType: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
}
