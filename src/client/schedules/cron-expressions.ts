// Which cron expressions a schedule accepts, checked before Temporal sees them (cron-parser reads the fields).
import { CronExpressionParser } from 'cron-parser';
import { ScheduleInvalidError } from '../../protocol/schedule-errors';

/** The named shortcuts Temporal reads the way cron-parser does. */
const NAMED = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/**
 * Checks one cron expression of `spec.cron` (`field` names it, e.g. `spec.cron[1]`): five fields
 * whose values are in range (cron-parser reads them: `61 * * * *`, `0 0 31 2 *` and `0 0 * * 8`
 * are refused), or a named shortcut. `@every` and a `CRON_TZ=` prefix, which Temporal also reads,
 * are refused with the option to use instead, so one schedule has one way to say each thing.
 * @throws ScheduleInvalidError naming the field and what is wrong.
 */
export function assertCronExpression(expression: unknown, field: string): asserts expression is string {
  if (typeof expression !== 'string' || !expression.trim()) throw new ScheduleInvalidError(field, 'must be a cron expression such as "0 9 * * 1-5"');
  const text = expression.trim();
  if (/^@every\b/i.test(text)) throw new ScheduleInvalidError(field, `"${text}": give an interval as spec.every ('1h'), not as @every`);
  if (/^(CRON_)?TZ=/i.test(text)) throw new ScheduleInvalidError(field, `"${text}": give the time zone as spec.timezone, not in the expression`);
  if (text.startsWith('@')) {
    if (NAMED.has(text.toLowerCase())) return;
    throw new ScheduleInvalidError(field, `"${text}" is not a named schedule: use one of ${[...NAMED].join(', ')}, or five cron fields`);
  }
  const fields = text.split(/\s+/);
  if (fields.length !== 5)
    throw new ScheduleInvalidError(
      field,
      `"${text}" has ${fields.length} fields: a cron expression has five (minute hour day-of-month month day-of-week)`,
    );
  try {
    CronExpressionParser.parse(text);
  } catch (error) {
    throw new ScheduleInvalidError(field, `"${text}" is not a valid cron expression (${error instanceof Error ? error.message : String(error)})`);
  }
}
