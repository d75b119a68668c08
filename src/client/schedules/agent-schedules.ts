// Agents on a schedule: create, list, pause, resume, trigger and delete Temporal Schedules that start agent runs or post into threads.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client } from '@temporalio/client';
import { ErrorCode } from '../../protocol/errors';
import { ScheduleError, ScheduleInvalidError } from '../../protocol/schedule-errors';
import { TemporalScheduledByIdAttribute } from '../../protocol/schedule-types';
import { searchAttributesMissing } from '../search-attribute-errors';
import { scheduleActionOf } from './schedule-actions';
import type { AgentScheduleDescription, AgentScheduleSummary, ScheduleCreateOptions, ScheduledRun, ScheduleOverlap } from './schedule-options';
import { assertScheduleId, overlapPolicyOf, schedulePoliciesOf, scheduleSpecOf } from './schedule-validation';
import { scheduleDescriptionOf, scheduleMemoOf, scheduleSummaryOf } from './schedule-views';

/**
 * Agents on a schedule (docs/schedules.md): Temporal Schedules whose fires start an agent run on
 * the client's task queue, or post a message into a thread. Every option is checked before
 * anything is sent: a refused one is a `ScheduleInvalidError` naming its field, and nothing is
 * created or changed. Reach it as `agents.schedules`.
 * @example
 * const agents = await AgentClient.connect();
 * await agents.schedules.create('weekday-report', {
 *   spec: { cron: '0 9 * * 1-5', timezone: 'Europe/Paris' },
 *   action: { kind: 'run', config: { name: 'reporter', model: 'openai:gpt-4o-mini' }, task: 'Summarise yesterday.' },
 *   overlap: 'skip',
 * });
 * for (const schedule of await agents.schedules.list()) console.log(schedule.scheduleId, schedule.nextActionTimes[0]);
 */
export class AgentSchedules {
  constructor(
    private readonly temporal: Client,
    private readonly namespace: string,
    private readonly taskQueue: string,
  ) {}

  /**
   * Creates the schedule `scheduleId`. Its fires start workflows named `<scheduleId>-<time of the
   * fire>` on the client's task queue, each carrying `TemporalScheduledById = <scheduleId>`.
   * @throws ScheduleInvalidError (`ScheduleInvalid`, `field` names the option) before anything is
   * sent; ScheduleError `ScheduleExists` when the id is taken (that schedule is left as it was);
   * SearchAttributesMissingError on a namespace without `durable-agents setup`.
   */
  async create(scheduleId: string, options: ScheduleCreateOptions): Promise<AgentScheduleDescription> {
    assertScheduleId(scheduleId);
    if (options === null || typeof options !== 'object') throw new ScheduleInvalidError('options', 'must be { spec, action, ... }');
    const spec = scheduleSpecOf(options.spec);
    const policies = schedulePoliciesOf(options);
    if (options.note !== undefined && typeof options.note !== 'string') throw new ScheduleInvalidError('note', 'must be text');
    if (options.paused !== undefined && typeof options.paused !== 'boolean') throw new ScheduleInvalidError('paused', 'must be true or false');
    const { action, summary } = scheduleActionOf(scheduleId, this.taskQueue, options.action);
    try {
      await this.temporal.schedule.create({
        scheduleId,
        spec,
        action,
        policies,
        memo: scheduleMemoOf(options.spec, summary),
        state: { paused: options.paused ?? false, ...(options.note ? { note: options.note } : {}) },
      });
    } catch (error) {
      if (error instanceof ScheduleAlreadyRunning)
        throw new ScheduleError(ErrorCode.scheduleExists, scheduleId, `schedule ${scheduleId} exists already: delete it first, or choose another id`);
      throw searchAttributesMissing(error, this.namespace) ?? error;
    }
    return this.describe(scheduleId);
  }

  /**
   * Every schedule of the namespace with its next fire times, its state (paused, note) and what it
   * does. Temporal's list is eventually consistent: a schedule created a moment ago may be missing
   * and a changed one may show its old state for a moment (`describe` is always current).
   */
  async list(): Promise<AgentScheduleSummary[]> {
    const schedules: AgentScheduleSummary[] = [];
    for await (const schedule of this.temporal.schedule.list()) schedules.push(scheduleSummaryOf(schedule));
    return schedules.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
  }

  /** The schedule now: its spec, action, state, policies, next fire times and counts. @throws ScheduleError `ScheduleNotFound`. */
  async describe(scheduleId: string): Promise<AgentScheduleDescription> {
    return scheduleDescriptionOf(await this.call(scheduleId, (handle) => handle.describe()));
  }

  /** Pauses the schedule: no fire until `resume` (a `trigger` still starts one). @throws ScheduleError `ScheduleNotFound`. */
  async pause(scheduleId: string, note?: string): Promise<void> {
    await this.call(scheduleId, (handle) => handle.pause(note ?? 'paused by durable-agents'));
  }

  /** Resumes a paused schedule from its next fire time. @throws ScheduleError `ScheduleNotFound`. */
  async resume(scheduleId: string, note?: string): Promise<void> {
    await this.call(scheduleId, (handle) => handle.unpause(note ?? 'resumed by durable-agents'));
  }

  /**
   * Fires the schedule now, paused or not. `overlap` is this fire's policy (default `allow_all`,
   * Temporal's for a trigger: it starts even while an earlier fire runs).
   * @throws ScheduleInvalidError (`overlap`) before anything is sent; ScheduleError `ScheduleNotFound`.
   */
  async trigger(scheduleId: string, overlap?: ScheduleOverlap): Promise<void> {
    const policy = overlap === undefined ? undefined : overlapPolicyOf(overlap);
    await this.call(scheduleId, (handle) => handle.trigger(policy));
  }

  /** Deletes the schedule; the runs it started go on. @throws ScheduleError `ScheduleNotFound`. */
  async delete(scheduleId: string): Promise<void> {
    await this.call(scheduleId, (handle) => handle.delete());
  }

  /**
   * The workflows the schedule started (its runs, or its thread posts), newest first, found by
   * Temporal's `TemporalScheduledById` search attribute; they outlive the schedule. Visibility is
   * eventually consistent: a fire of a moment ago may be missing.
   */
  async runsOf(scheduleId: string): Promise<ScheduledRun[]> {
    assertScheduleId(scheduleId);
    const runs: ScheduledRun[] = [];
    const query = `${TemporalScheduledByIdAttribute.name} = '${scheduleId}'`;
    for await (const execution of this.temporal.workflow.list({ query })) {
      runs.push({
        workflowId: execution.workflowId,
        runId: execution.runId,
        workflowType: execution.type,
        status: execution.status.name,
        startTime: execution.startTime,
        ...(execution.closeTime ? { closeTime: execution.closeTime } : {}),
      });
    }
    return runs.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  }

  /** Calls `operation` on the schedule's handle, an unknown id as `ScheduleNotFound`. */
  private async call<T>(scheduleId: string, operation: (handle: ReturnType<Client['schedule']['getHandle']>) => Promise<T>): Promise<T> {
    assertScheduleId(scheduleId);
    try {
      return await operation(this.temporal.schedule.getHandle(scheduleId));
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) throw new ScheduleError(ErrorCode.scheduleNotFound, scheduleId, `no schedule ${scheduleId}`);
      throw error;
    }
  }
}
