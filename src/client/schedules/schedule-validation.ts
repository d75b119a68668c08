// A schedule's options checked and turned into Temporal's spec and policies, before anything is sent.
import type { ScheduleOverlapPolicy, ScheduleSpec } from '@temporalio/client';
import { isDuration, parseDuration } from '../../config/duration';
import { ScheduleInvalidError } from '../../protocol/schedule-errors';
import { assertCronExpression } from './cron-expressions';
import { SCHEDULE_OVERLAP_POLICIES, type ScheduleCreateOptions, type ScheduleOverlap, type ScheduleSpecOptions } from './schedule-options';

/** Temporal's shortest catch-up window: a shorter one is refused by the server. */
const MIN_CATCHUP_MS = 10_000;
/** Schedule ids longer than this would make fire ids (and thread message ids) too long. */
const MAX_SCHEDULE_ID = 100;

/** Temporal's policies of a schedule, from its options. */
export interface SchedulePolicies {
  overlap: ScheduleOverlapPolicy;
  catchupWindow?: number;
  pauseOnFailure: boolean;
}

/** @throws ScheduleInvalidError (`field` `scheduleId`) for an empty id, one with spaces, quotes or backslashes (it is quoted in visibility queries), or one over 100 characters. */
export function assertScheduleId(scheduleId: unknown): asserts scheduleId is string {
  if (typeof scheduleId !== 'string' || !/^[^\s'"\\]+$/.test(scheduleId) || scheduleId.length > MAX_SCHEDULE_ID)
    throw new ScheduleInvalidError(
      'scheduleId',
      `must be 1 to ${MAX_SCHEDULE_ID} characters without spaces, quotes or backslashes, not ${JSON.stringify(scheduleId)}`,
    );
}

/**
 * Temporal's overlap policy for one of ours (`skip`, `buffer_one`, `buffer_all`, `cancel_other`,
 * `terminate_other`, `allow_all`); `field` names the option (`overlap`, or a trigger's).
 * @throws ScheduleInvalidError for anything else.
 */
export function overlapPolicyOf(overlap: unknown, field = 'overlap'): ScheduleOverlapPolicy {
  if (typeof overlap === 'string' && (SCHEDULE_OVERLAP_POLICIES as readonly string[]).includes(overlap))
    return overlap.toUpperCase() as ScheduleOverlapPolicy;
  throw new ScheduleInvalidError(field, `must be one of ${SCHEDULE_OVERLAP_POLICIES.join(', ')}, not ${JSON.stringify(overlap)}`);
}

/** Ours for Temporal's overlap policy (the server's default, unspecified, is `skip`). */
export function overlapNameOf(policy: ScheduleOverlapPolicy | undefined): ScheduleOverlap {
  return (policy?.toLowerCase() ?? 'skip') as ScheduleOverlap;
}

/**
 * Temporal's spec for `spec`: at least one of `cron` and `every`, every cron expression checked
 * (`assertCronExpression`), durations as in configs, a known time zone, `startAt` before `endAt`.
 * @throws ScheduleInvalidError naming the first field that is wrong (`spec.cron[0]`, `spec.every`, ...).
 */
export function scheduleSpecOf(spec: ScheduleSpecOptions | undefined): ScheduleSpec {
  if (spec === null || typeof spec !== 'object') throw new ScheduleInvalidError('spec', 'must say when the schedule fires: { cron } or { every }');
  const cron = spec.cron === undefined ? [] : Array.isArray(spec.cron) ? spec.cron : [spec.cron];
  if (cron.length === 0 && spec.every === undefined) throw new ScheduleInvalidError('spec', 'needs spec.cron or spec.every (at least one)');
  cron.forEach((expression, index) => assertCronExpression(expression, Array.isArray(spec.cron) ? `spec.cron[${index}]` : 'spec.cron'));
  const every = spec.every === undefined ? undefined : durationMs(spec.every, 'spec.every', 1_000);
  if (spec.offset !== undefined && every === undefined) throw new ScheduleInvalidError('spec.offset', 'shifts an interval: give spec.every too');
  const offset = spec.offset === undefined ? undefined : durationMs(spec.offset, 'spec.offset', 0);
  if (offset !== undefined && every !== undefined && offset >= every)
    throw new ScheduleInvalidError('spec.offset', `must be less than spec.every (${spec.every}), not ${spec.offset}`);
  const jitter = spec.jitter === undefined ? undefined : durationMs(spec.jitter, 'spec.jitter', 0);
  if (spec.timezone !== undefined) assertTimezone(spec.timezone);
  const startAt = spec.startAt === undefined ? undefined : dateOf(spec.startAt, 'spec.startAt');
  const endAt = spec.endAt === undefined ? undefined : dateOf(spec.endAt, 'spec.endAt');
  if (startAt && endAt && endAt <= startAt) throw new ScheduleInvalidError('spec.endAt', 'must be after spec.startAt');
  return {
    ...(cron.length > 0 ? { cronExpressions: cron.map((expression) => expression.trim()) } : {}),
    ...(every !== undefined ? { intervals: [{ every, ...(offset !== undefined ? { offset } : {}) }] } : {}),
    ...(jitter !== undefined ? { jitter } : {}),
    ...(spec.timezone !== undefined ? { timezone: spec.timezone } : {}),
    ...(startAt ? { startAt } : {}),
    ...(endAt ? { endAt } : {}),
  };
}

/**
 * Temporal's policies for the options: the overlap policy (default `skip`), the catch-up window (at
 * least 10s) and pause-on-failure.
 * @throws ScheduleInvalidError (`overlap`, `catchupWindow` or `pauseOnFailure`).
 */
export function schedulePoliciesOf(options: Pick<ScheduleCreateOptions, 'overlap' | 'catchupWindow' | 'pauseOnFailure'>): SchedulePolicies {
  const overlap = overlapPolicyOf(options.overlap ?? 'skip');
  const catchupWindow = options.catchupWindow === undefined ? undefined : durationMs(options.catchupWindow, 'catchupWindow', MIN_CATCHUP_MS);
  if (options.pauseOnFailure !== undefined && typeof options.pauseOnFailure !== 'boolean')
    throw new ScheduleInvalidError('pauseOnFailure', `must be true or false, not ${JSON.stringify(options.pauseOnFailure)}`);
  return { overlap, ...(catchupWindow !== undefined ? { catchupWindow } : {}), pauseOnFailure: options.pauseOnFailure ?? false };
}

/** Milliseconds of a duration option of at least `minMs`. @throws ScheduleInvalidError naming `field`. */
function durationMs(value: unknown, field: string, minMs: number): number {
  const minimum = minMs >= 1_000 ? `at least ${minMs / 1_000}s` : 'a duration';
  if (typeof value !== 'string' || !isDuration(value) || parseDuration(value) < minMs)
    throw new ScheduleInvalidError(field, `must be ${minimum} such as 30s, 15m, 4h or 1d, not ${JSON.stringify(value)}`);
  return parseDuration(value);
}

function assertTimezone(timezone: unknown): void {
  try {
    if (typeof timezone !== 'string' || !timezone) throw new RangeError('empty');
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new ScheduleInvalidError('spec.timezone', `must be an IANA time zone such as Europe/Paris or UTC, not ${JSON.stringify(timezone)}`);
  }
}

function dateOf(value: Date | string, field: string): Date {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime()))
    throw new ScheduleInvalidError(field, `must be a date (ISO 8601, 2026-01-31T09:00:00Z), not ${JSON.stringify(value)}`);
  return date;
}
