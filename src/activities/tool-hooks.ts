// The hooks of a tool activity: error hooks for a failed call, then after-tool hooks that may transform the result.
import type { HookRunner } from '../hooks/hook-runner';
import { ErrorCode } from '../protocol/errors';
import { describeHookFailure, type HookContext, type HookFailureReport } from '../protocol/hook-types';
import type { ToolCall } from '../protocol/messages';
import type { ToolResult } from '../protocol/run-types';
import { LiveHeartbeat } from './heartbeat';
import { hookEventBase, hookRunContext, logHookFailures, whileHeartbeating } from './hook-support';

/** A tool call's outcome before it is recorded: the content and, for an error result, its code. */
export interface ToolOutcome {
  content: string;
  errorCode?: string;
}

/**
 * Runs a tool activity's hooks on its outcome, in the activity, so what they return is what the
 * run records (a redacted result never reaches the history): the error hooks first when the
 * outcome is an error, then the after-tool hooks, each of which may replace the content. With the
 * agent's `hook_errors: fail`, an after-tool hook that throws withholds the result: the call
 * becomes a `HookFailed` error result (the tool did run). Without hooks for the agent, the outcome
 * is returned as it is.
 */
export async function runToolHooks(
  runner: HookRunner | undefined,
  request: { hooks?: HookContext; call: ToolCall; step: number },
  attempt: number,
  outcome: ToolOutcome,
): Promise<ToolOutcome & Pick<ToolResult, 'hookFailures'>> {
  const context = request.hooks;
  if (!runner || !context) return outcome;
  const live = new LiveHeartbeat();
  return whileHeartbeating(() => hooksOn(runner, hookRunContext(context, live), request, attempt, outcome), live);
}

async function hooksOn(
  runner: HookRunner,
  context: HookContext,
  request: { call: ToolCall; step: number },
  attempt: number,
  outcome: ToolOutcome,
): Promise<ToolOutcome & Pick<ToolResult, 'hookFailures'>> {
  const base = { ...hookEventBase(context, attempt), step: request.step };
  const ignored: HookFailureReport[] = [];
  if (outcome.errorCode !== undefined && runner.has('error', context.agent)) {
    // An error hook only observes: its own failure never changes the result.
    const observed = await runner.observe(
      'error',
      { ...context, onError: 'ignore' },
      { ...base, where: 'tool', errorType: outcome.errorCode, message: outcome.content, toolName: request.call.name },
    );
    ignored.push(...observed.ignored);
  }
  const changed = await runner.changeContent(context, {
    ...base,
    call: request.call,
    result: {
      content: outcome.content,
      isError: outcome.errorCode !== undefined,
      ...(outcome.errorCode !== undefined ? { errorCode: outcome.errorCode } : {}),
    },
  });
  ignored.push(...changed.ignored);
  logHookFailures(ignored, 'ignored');
  const reported = ignored.map((failure) => ({ ...failure, outcome: 'ignored' as const }));
  if (changed.failed) {
    logHookFailures([changed.failed], 'failed');
    return {
      content: `Error: the result of '${request.call.name}' is withheld: ${describeHookFailure(changed.failed)}`,
      errorCode: ErrorCode.hookFailed,
      hookFailures: [...reported, { ...changed.failed, outcome: 'failed' }],
    };
  }
  return { ...outcome, content: changed.content, ...(reported.length > 0 ? { hookFailures: reported } : {}) };
}
