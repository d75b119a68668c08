// The worker's registered hooks: which apply to an agent, and running them in order under the agent's error policy.
import { z } from 'zod';
import { HookDefinitionError } from '../protocol/errors';
import type { ToolDecision } from '../protocol/call-deciders';
import { describeHookFailure, type HookContext, type HookFailureReport, type HookPoint } from '../protocol/hook-types';

import type { AnyHook, Hook } from './define-hook';
import type { BeforeToolEvent, HookEvents, HookResults } from './hook-events';

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

  /** @throws HookDefinitionError when two hooks share a name. */
  constructor(hooks: Iterable<AnyHook> = []) {
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
  observe<P extends HookPoint>(point: P, context: HookContext, event: HookEvents[P]): Promise<ChainOutcome> {
    return this.chain(
      point,
      context,
      () => event,
      () => false,
    );
  }

  /** After-model hooks: each may replace the text; the result is the text to record. */
  async changeText(context: HookContext, event: HookEvents['after-model']): Promise<ChainOutcome & { text: string }> {
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
  async changeContent(context: HookContext, event: HookEvents['after-tool']): Promise<ChainOutcome & { content: string }> {
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
   * reason) while later hooks may still deny; `modify` changes the arguments the next hooks see.
   * Null when every hook let the call through unchanged (nothing to record).
   */
  async decideToolCall(context: HookContext, event: BeforeToolEvent): Promise<{ decision: ToolDecision | null; ignored: HookFailureReport[] }> {
    // Set by the hooks' verdicts, in the chain's order.
    const verdicts: { args?: Record<string, unknown>; changedBy?: Decider; approval?: Decider; denial?: Decider } = {};
    const outcome = await this.chain(
      'before-tool',
      context,
      () => ({ ...event, call: { ...event.call, args: verdicts.args ?? event.call.args } }),
      (result, hook) => {
        if (result === undefined) return false;
        const verdict = verdictSchema.parse(result);
        if (verdict.action === 'modify') {
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
    if (outcome.failed)
      return { decision: { action: 'fail', hook: outcome.failed.hook, reason: describeHookFailure(outcome.failed) }, ignored: outcome.ignored };
    const decider = verdicts.denial ?? verdicts.approval ?? verdicts.changedBy;
    if (!decider) return { decision: null, ignored: outcome.ignored };
    const action = verdicts.denial ? 'deny' : verdicts.approval ? 'require_approval' : 'allow';
    return { decision: { action, ...decider, ...(verdicts.args ? { args: verdicts.args } : {}) }, ignored: outcome.ignored };
  }

  private select<P extends HookPoint>(point: P, agent: string): Array<Hook<P>> {
    return ((this.byPoint.get(point) ?? []) as unknown as Array<Hook<P>>).filter((hook) => hook.agents === null || hook.agents.includes(agent));
  }

  /** Runs `point`'s hooks for the context's agent in order; `apply` takes each result (true: stop the chain) and may throw on a bad one. */
  private async chain<P extends HookPoint>(
    point: P,
    context: HookContext,
    eventFor: () => HookEvents[P],
    apply: (result: HookResults[P], hook: Hook<P>) => boolean,
  ): Promise<ChainOutcome> {
    const ignored: HookFailureReport[] = [];
    for (const hook of this.select(point, context.agent)) {
      try {
        if (apply(await hook.run(eventFor()), hook)) break;
      } catch (error) {
        const report: HookFailureReport = { hook: hook.name, point, message: failureMessage(error) };
        if (context.onError === 'fail') return { ignored, failed: report };
        ignored.push(report);
      }
    }
    return { ignored, failed: null };
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof z.ZodError) {
    return `returned a value its point does not accept: ${error.issues.map((issue) => `${issue.path.join('.') || '(value)'}: ${issue.message}`).join('; ')}`;
  }
  return error instanceof Error ? error.message : String(error);
}
