// What a model step keeps in its heartbeat details: the calls the provider billed, its reply, and the hook running now.
import type { HookPoint } from './hook-types';
import type { ToolCall, Usage } from './messages';

/**
 * One call the provider answered (and billed) in an attempt of a model step: its tokens and its
 * price (null: the model has no price). Carried in the step's heartbeat details, so an attempt
 * that is lost after the answer (a dead worker, a timeout) is still counted by the next one.
 */
export interface BilledCall {
  attempt: number;
  usage: Usage;
  costUsd: number | null;
}

/**
 * A provider's reply kept in the heartbeat details (after the after-model hooks changed its text,
 * so nothing they remove leaves the activity): the next attempt of the step uses it instead of
 * calling (and paying) the provider again. Kept only when it is at most `KEPT_REPLY_LIMIT_BYTES`.
 */
export interface KeptReply extends BilledCall {
  text: string;
  toolCalls: ToolCall[];
}

/** The spend part of a model step's heartbeat details (key `spend`). */
export interface StepSpendState {
  /** Calls of earlier attempts that were answered and then lost: the step's result counts them (`ModelStepResult.lostCalls`). */
  lost: BilledCall[];
  /** This attempt's call, once the provider answered. */
  answered?: BilledCall;
  /** This attempt's reply, when it fits `KEPT_REPLY_LIMIT_BYTES`. */
  reply?: KeptReply;
}

/** The largest reply (JSON bytes of its text and tool calls) a model step keeps for its next attempt: 64 KiB. */
export const KEPT_REPLY_LIMIT_BYTES = 64 * 1024;

/** At most this many lost calls are listed; older ones are added into the oldest entry, so the details stay small. */
export const LOST_CALLS_LISTED = 20;

/** A hook running in an activity (key `runningHook` of its heartbeat details): what the run waits for. */
export interface RunningHookSnapshot {
  hook: string;
  point: HookPoint;
  /** When it started (ms since the epoch, the worker's clock). */
  startedAt: number;
  /** Its time limit: after this long it is a hook failure. */
  limitMs: number;
}

/** The keys an activity adds to whatever live snapshot its heartbeat details hold. */
export const STEP_STATE_KEYS = ['spend', 'runningHook'] as const;

/** The step state in heartbeat details, where there is one (anything else reads as none). */
export function readStepState(details: unknown): { spend?: StepSpendState; runningHook?: RunningHookSnapshot } {
  if (!details || typeof details !== 'object') return {};
  const { spend, runningHook } = details as { spend?: unknown; runningHook?: unknown };
  return {
    ...(isSpendState(spend) ? { spend } : {}),
    ...(isRunningHook(runningHook) ? { runningHook } : {}),
  };
}

/** `details` without the step state (what a live view shows of a snapshot). */
export function withoutStepState<T>(details: T): T {
  if (!details || typeof details !== 'object') return details;
  const copy = { ...details } as Record<string, unknown>;
  for (const key of STEP_STATE_KEYS) delete copy[key];
  return copy as T;
}

/** Adds `call` to `lost`, keeping at most `LOST_CALLS_LISTED` entries (the oldest absorbs the rest). */
export function addLostCall(lost: readonly BilledCall[], call: BilledCall): BilledCall[] {
  const next = [...lost, call];
  if (next.length <= LOST_CALLS_LISTED) return next;
  const [first, second, ...rest] = next;
  return [sumCalls(first!, second!), ...rest];
}

function sumCalls(a: BilledCall, b: BilledCall): BilledCall {
  const cached = (a.usage.cachedInputTokens ?? 0) + (b.usage.cachedInputTokens ?? 0);
  return {
    attempt: a.attempt,
    usage: {
      inputTokens: a.usage.inputTokens + b.usage.inputTokens,
      outputTokens: a.usage.outputTokens + b.usage.outputTokens,
      ...(cached ? { cachedInputTokens: cached } : {}),
    },
    costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd,
  };
}

function isSpendState(value: unknown): value is StepSpendState {
  return Boolean(value) && typeof value === 'object' && Array.isArray((value as { lost?: unknown }).lost);
}

function isRunningHook(value: unknown): value is RunningHookSnapshot {
  return Boolean(value) && typeof value === 'object' && typeof (value as { hook?: unknown }).hook === 'string';
}
