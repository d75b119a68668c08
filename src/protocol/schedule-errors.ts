// Errors of agent schedules (`agents.schedules`): options refused before anything is sent, an unknown id, an id taken. Sandbox-safe.
import { AgentRuntimeError, ErrorCode } from './errors';

/**
 * A schedule's options refused before anything is sent to Temporal (code `ScheduleInvalid`):
 * `field` names the option (`spec.cron`, `spec.every`, `overlap`, `catchupWindow`, `action.task`,
 * `action.config`, ...), the message says what is wrong and what would be valid. No schedule was
 * created or changed.
 * @example
 * import { ScheduleInvalidError } from 'durable-agents';
 *
 * try {
 *   await agents.schedules.create('digest', { spec: { cron: '0 25 * * *' }, action: { kind: 'run', config, task: 'Digest' } });
 * } catch (error) {
 *   if (error instanceof ScheduleInvalidError) console.error(error.field, error.message); // spec.cron ...
 * }
 */
export class ScheduleInvalidError extends AgentRuntimeError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(ErrorCode.scheduleInvalid, `${field}: ${message}`);
  }
}

/**
 * A schedule id the namespace has no schedule for (`ScheduleNotFound`), or one it has already
 * when creating (`ScheduleExists`: the existing schedule is left as it was). `scheduleId` names it.
 * @example
 * import { ErrorCode, ScheduleError } from 'durable-agents';
 *
 * try {
 *   await agents.schedules.pause('nightly-report');
 * } catch (error) {
 *   if (error instanceof ScheduleError && error.code === ErrorCode.scheduleNotFound) console.error(error.message);
 *   else throw error;
 * }
 */
export class ScheduleError extends AgentRuntimeError {
  constructor(
    code: (typeof ErrorCode)['scheduleNotFound' | 'scheduleExists'],
    readonly scheduleId: string,
    message: string,
  ) {
    super(code, message);
  }
}
