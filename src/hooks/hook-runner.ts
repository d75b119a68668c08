// The worker's registered hooks: which apply to an agent, and running them in order under the agent's error policy.
import { z } from 'zod';
import { HookDefinitionError } from '../protocol/errors';
import type { ToolDecision } from '../protocol/call-deciders';
import { describeHookFailure, type HookContext, type HookFailureReport, type HookPoint } from '../protocol/hook-types';

import type { RunningHookSnapshot } from '../protocol/model-step-state';
import type { AnyHook, Hook } from './define-hook';
import type { BeforeToolEvent, HookEvents, HookResults } from './hook-events';
import { withTimeLimit } from './hook-time-limit';

/** A hook's time limit when neither the hook (`timeoutMs`) nor the worker (`hookTimeoutMs`) gives one: 30 seconds. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/** What the activity running hooks adds to their context: a watcher of the hook running now, and the activity's own deadline. */
export interface HookRunContext extends HookContext {
  /** Told each hook as it starts, and null when it ends (the activity shows it in its heartbeat). */
  watch?: (running: RunningHookSnapshot | null) => void;
  /** No hook may run past this time (ms since the epoch): the activity must return before its own timeout. */
  deadlineMs?: number;
}

/** What a chain of hooks came to: the hooks that threw and were ignored, and the one that failed the call (`hook_errors: fail`). */
export interface ChainOutcome {
  ignored: HookFailureReport[];
  failed: HookFailureReport | null;
}

/** The hook whose verdict decided, and its reason. */
interface Decider {
  hook: string;
  reason?: string;
}

const verdictSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('allow') }),
  z.object({ action: z.literal('modify'), args: z.record(z.string(), z.unknown()), reason: z.string().optional() }),
  z.object({ action: z.literal('deny'), reason: z.string().min(1) }),
  z.object({ action: z.literal('require_approval'), reason: z.string().min(1) }),
]);
const textChangeSchema = z.object({ text: z.string() });
const contentChangeSchema = z.object({ content: z.string() });

/**
 * The hooks a worker was given, by point. Hooks of a point run one after the other, in the order
 * they were given; each sees what the ones before it changed. A hook that throws, or returns
 * something its point does not accept, is a failure reported with its name and point: with the
 * agent's `hook_errors: fail` it stops the chain and fails the call it belongs to, with `ignore` it
 * is reported and its change skipped.
 */
export class HookRunner {
  private readonly byPoint = new Map<HookPoint, AnyHook[]>();
  private readonly timeoutMs: number;

  /**
   * `options.timeoutMs`: the time limit of a hook that sets none (default `DEFAULT_HOOK_TIMEOUT_MS`).
   * @throws HookDefinitionError when two hooks share a name, or the time limit is not a positive number.
   */
  constructor(hooks: Iterable<AnyHook> = [], options: { timeoutMs?: number } = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0)
      throw new HookDefinitionError(`hookTimeoutMs must be a positive number of milliseconds, not ${String(options.timeoutMs)}`);
    const names = new Set<string>();
    for (const hook of hooks) {
      if (names.has(hook.name))
        throw new HookDefinitionError(`Two hooks are named '${hook.name}': hook names must be unique on a worker (they name the hook in reports)`);
      names.add(hook.name);
      this.byPoint.set(hook.point, [...(this.byPoint.get(hook.point) ?? []), hook]);
    }
  }

  /** The points with at least one hook for `agent` (empty: the worker has none for it). */
  points(agent: string): HookPoint[] {
    return [...this.byPoint.keys()].filter((point) => this.has(point, agent));
  }

  has(point: HookPoint, agent: string): boolean {
    return this.select(point, agent).length > 0;
  }

  /** Runs the hooks of an observing point (their results are not used). */
  observe<P extends HookPoint>(point: P, context: HookRunContext, event: HookEvents[P]): Promise<ChainOutcome> {
    return this.chain(
      point,
      context,
      () => event,
      () => false,
    );
  }

  /** After-model hooks: each may replace the text; the result is the text to record. */
  async changeText(context: HookRunContext, event: HookEvents['after-model']): Promise<ChainOutcome & { text: string }> {
    let text = event.text;
    const outcome = await this.chain(
      'after-model',
      context,
      () => ({ ...event, text }),
      (result) => {
        if (result !== undefined) text = textChangeSchema.parse(result).text;
        return false;
      },
    );
    return { ...outcome, text };
  }

  /** After-tool hooks: each may replace the content; the result is the content to record. */
  async changeContent(context: HookRunContext, event: HookEvents['after-tool']): Promise<ChainOutcome & { content: string }> {
    let content = event.result.content;
    const outcome = await this.chain(
      'after-tool',
      context,
      () => ({ ...event, result: { ...event.result, content } }),
      (result) => {
        if (result !== undefined) content = contentChangeSchema.parse(result).content;
        return false;
      },
    );
    return { ...outcome, content };
  }

  /**
   * Before-tool hooks on one call: a `deny` ends the chain; `require_approval` is kept (the first
   * reason) while later hooks may still deny; `modify` changes the arguments the next hooks see;
   * an explicit `allow` is recorded too (the last hook that said it, unless one modified the call).
   * Null when no hook returned a verdict (nothing to record).
   */
  async decideToolCall(context: HookRunContext, event: BeforeToolEvent): Promise<ChainOutcome & { decision: ToolDecision | null }> {
    // Set by the hooks' verdicts, in the chain's order.
    const verdicts: { args?: Record<string, unknown>; changedBy?: Decider; allowedBy?: Decider; approval?: Decider; denial?: Decider } = {};
    const outcome = await this.chain(
      'before-tool',
      context,
      () => ({ ...event, call: { ...event.call, args: verdicts.args ?? event.call.args } }),
      (result, hook) => {
        if (result === undefined) return false;
        const verdict = verdictSchema.parse(result);
        if (verdict.action === 'allow') {
          verdicts.allowedBy = { hook: hook.name };
        } else if (verdict.action === 'modify') {
          verdicts.args = verdict.args;
          verdicts.changedBy = { hook: hook.name, ...(verdict.reason ? { reason: verdict.reason } : {}) };
        } else if (verdict.action === 'require_approval') {
          verdicts.approval ??= { hook: hook.name, reason: verdict.reason };
        } else if (verdict.action === 'deny') {
          verdicts.denial = { hook: hook.name, reason: verdict.reason };
          return true;
        }
        return false;
      },
    );
    if (outcome.failed) return { ...outcome, decision: { action: 'fail', hook: outcome.failed.hook, reason: describeHookFailure(outcome.failed) } };
    const decider = verdicts.denial ?? verdicts.approval ?? verdicts.changedBy ?? verdicts.allowedBy;
    if (!decider) return { ...outcome, decision: null };
    const action = verdicts.denial ? 'deny' : verdicts.approval ? 'require_approval' : 'allow';
    return { ...outcome, decision: { action, ...decider, ...(verdicts.args ? { args: verdicts.args } : {}) } };
  }

  private select<P extends HookPoint>(point: P, agent: string): Array<Hook<P>> {
    return ((this.byPoint.get(point) ?? []) as unknown as Array<Hook<P>>).filter((hook) => hook.agents === null || hook.agents.includes(agent));
  }

  /**
   * Runs `point`'s hooks for the context's agent in order, each within its time limit; `apply`
   * takes each result (true: stop the chain) and may throw on a bad one.
   */
  private async chain<P extends HookPoint>(
    point: P,
    context: HookRunContext,
    eventFor: () => HookEvents[P],
    apply: (result: HookResults[P], hook: Hook<P>) => boolean,
  ): Promise<ChainOutcome> {
    const ignored: HookFailureReport[] = [];
    for (const hook of this.select(point, context.agent)) {
      const limit = this.limitOf(hook, context.deadlineMs);
      context.watch?.({ hook: hook.name, point, startedAt: Date.now(), limitMs: limit.ms });
      try {
        if (apply(await withTimeLimit(() => hook.run(eventFor()), limit), hook)) break;
      } catch (error) {
        const report: HookFailureReport = { hook: hook.name, point, message: failureMessage(error) };
        if (context.onError === 'fail') return { ignored, failed: report };
        ignored.push(report);
      } finally {
        context.watch?.(null);
      }
    }
    return { ignored, failed: null };
  }

  /** A hook's time limit: its own or the worker's, cut to what its activity has left. */
  private limitOf(hook: { timeoutMs?: number }, deadlineMs: number | undefined): { ms: number; why: string } {
    const own = hook.timeoutMs ?? this.timeoutMs;
    const why =
      hook.timeoutMs !== undefined
        ? 'its timeoutMs'
        : `the worker's hookTimeoutMs${this.timeoutMs === DEFAULT_HOOK_TIMEOUT_MS ? ', by default' : ''}`;
    const left = deadlineMs === undefined ? Number.POSITIVE_INFINITY : Math.max(0, deadlineMs - Date.now());
    return left < own ? { ms: left, why: "what was left of its activity's start-to-close timeout" } : { ms: own, why };
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof z.ZodError) {
    return `returned a value its point does not accept: ${error.issues.map((issue) => `${issue.path.join('.') || '(value)'}: ${issue.message}`).join('; ')}`;
  }
  return error instanceof Error ? error.message : String(error);
}
