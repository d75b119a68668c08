import { describeCost } from '../../protocol/model-price';
import { formatDuration } from '../../config/duration';
import { describeCallDecider } from '../../protocol/call-deciders';
import type { RunStatus } from '../../protocol/run-types';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { AgentClient, type RunHandle } from '../../client/agent-client';

/** `status RUN`: the run's live status from the `status` query. */
export async function statusCommand(workflowId: string, options: { json?: boolean }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const run = client.getRun(workflowId);
    const [status, description] = await Promise.all([run.status(), run.workflow.describe()]);
    const failure = CLOSED_WITHOUT_RESULT.has(description.status.name) ? await closeFailure(run) : null;
    if (options.json) {
      console.log(JSON.stringify(statusJson(workflowId, description.status.name, status, failure, Date.now())));
      return;
    }
    console.log(formatStatus(workflowId, description.status.name, status, { now: Date.now(), runUrl: client.runUrl(workflowId), failure }));
  } finally {
    if (!agents) await client.close();
  }
}

/**
 * What `status --json` prints: the `status` query's answer, with the waits' moments as ISO times
 * and how long the run has waited as a duration (`waitedMs`): the query's `sinceMs` and `untilMs`
 * are epoch milliseconds, which a script reading `sinceMs` would take for a duration.
 */
export function statusJson(workflowId: string, execution: string, status: RunStatus, failure: CloseFailure | null, now: number): object {
  const { concurrencySlotWait: slotWait, providerLimitWait: limitWait, ...rest } = status;
  const waited = (sinceMs: number) => ({ since: new Date(sinceMs).toISOString(), waitedMs: Math.max(0, now - sinceMs) });
  return {
    workflowId,
    execution,
    ...rest,
    ...(slotWait ? { concurrencySlotWait: { key: slotWait.key, limit: slotWait.limit, ...waited(slotWait.sinceMs) } } : {}),
    ...(limitWait
      ? {
          providerLimitWait: {
            model: limitWait.model,
            ...waited(limitWait.sinceMs),
            until: limitWait.untilMs === null ? null : new Date(limitWait.untilMs).toISOString(),
          },
        }
      : {}),
    ...(failure ? { failure } : {}),
  };
}

/** Executions that end without a result: their close event holds why. */
const CLOSED_WITHOUT_RESULT = new Set(['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED']);

/** Why a run ended without a result, as a failure's stable type (`ModelAuthFailed`, …) and message, from its close event. */
export interface CloseFailure {
  type: string | null;
  message: string;
}

/** The failure of a closed run: `result()` reads only the close event, and rejects with it. */
async function closeFailure(run: RunHandle): Promise<CloseFailure | null> {
  try {
    await run.result();
    return null;
  } catch (error) {
    return describeCloseFailure(error);
  }
}

/**
 * The cause of a `WorkflowFailedError`: the first failure type in its chain (an `ApplicationFailure`'s
 * type, or the kind of ending: terminated, timed out, cancelled) and its messages joined.
 */
export function describeCloseFailure(error: unknown): CloseFailure {
  const messages: string[] = [];
  let type: string | null = null;
  let current: unknown = error instanceof WorkflowFailedError ? error.cause : error;
  for (let depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current.message && !messages.includes(current.message)) messages.push(current.message);
    type ??= current instanceof ApplicationFailure ? (current.type ?? null) : (KIND_OF_ENDING[current.name] ?? null);
  }
  return { type, message: messages.join(': ') || 'no reason recorded' };
}

const KIND_OF_ENDING: Record<string, string> = { TerminatedFailure: 'Terminated', TimeoutFailure: 'TimedOut', CancelledFailure: 'Cancelled' };

/**
 * The human `status`: what `--json` holds, in lines: phase and step, why a closed run failed, tools, usage, the context
 * against its window, the plan, pending approvals (with the injected arguments a human decides
 * on, and the commands to decide), active skills and queued messages.
 */
export function formatStatus(
  workflowId: string,
  execution: string,
  status: RunStatus,
  context: { now: number; runUrl?: string | null; failure?: CloseFailure | null },
): string {
  const lines = [`Run ${workflowId}: ${execution}, phase ${status.phase}, step ${status.step} of ${status.maxSteps}`];
  if (context.failure) lines.push(`Failed${context.failure.type ? ` (${context.failure.type})` : ''}: ${context.failure.message}`);
  const limitWait = status.providerLimitWait;
  if (limitWait) {
    const until = limitWait.untilMs === null ? 'for its turn' : `until ${new Date(limitWait.untilMs).toISOString()}`;
    lines.push(`Waiting for provider limit of ${limitWait.model} ${until} (since ${formatDuration(Math.max(0, context.now - limitWait.sinceMs))})`);
  }
  const slotWait = status.concurrencySlotWait;
  if (slotWait)
    lines.push(
      `Waiting for a slot of ${slotWait.key} (at most ${slotWait.limit} runs at once; since ${formatDuration(Math.max(0, context.now - slotWait.sinceMs))})`,
    );
  for (const running of status.runningHooks ?? []) {
    lines.push(
      `Waiting for hook '${running.hook}' (${running.point}) in ${running.activityId}, attempt ${running.attempt}: running ${formatDuration(running.runningForMs)} of its ${formatDuration(running.limitMs)} limit`,
    );
  }
  for (const uncounted of status.uncountedSpend ?? []) {
    const unpriced = uncounted.unpricedCalls > 0 ? ` (${uncounted.unpricedCalls} unpriced)` : '';
    lines.push(
      `Billed, not counted yet: $${uncounted.costUsd}${unpriced} for ${uncounted.calls} call(s) of ${uncounted.activityId} (counted when it returns)`,
    );
  }
  lines.push(`Tools: ${status.activeTools.join(', ') || 'none'}${status.runningTools.length ? ` (running: ${status.runningTools.join(', ')})` : ''}`);
  lines.push(`Usage: ${status.usage.inputTokens} input / ${status.usage.outputTokens} output tokens, ${describeCost(status.usage)}`);
  if (status.budget) {
    const percent = Math.round((status.budget.promptTokens / status.budget.contextWindow) * 100);
    lines.push(`Context: ${status.budget.promptTokens} of ${status.budget.contextWindow} tokens (${percent}%)`);
  }
  if (status.stopReason) lines.push(`Stopped: ${status.stopReason}`);
  if (status.plan) {
    lines.push(`Plan (${status.plan.model}, ${status.plan.plannerSteps} planner steps):`);
    const steps = status.plan.steps.length > 0 ? status.plan.steps.map((step, index) => `${index + 1}. ${step}`) : status.plan.text.split('\n');
    lines.push(...steps.map((step) => `  ${step}`));
  }
  if (status.pendingApprovals.length > 0) {
    lines.push(`Pending approvals (${status.pendingApprovals.length}):`);
    for (const approval of status.pendingApprovals) {
      const expires = approval.expiresAt > context.now ? `in ${formatDuration(approval.expiresAt - context.now)}` : 'now';
      lines.push(
        `  ${approval.approvalId}  ${approval.toolName}(${JSON.stringify(approval.args)})  expires ${new Date(approval.expiresAt).toISOString()} (${expires})`,
      );
      for (const decider of approval.requiredBy ?? []) lines.push(`    required by ${describeCallDecider(decider)}`);
      for (const [name, value] of Object.entries(approval.injectedArgs))
        lines.push(`    ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
      lines.push(`    decide: durable-agents approve ${workflowId} ${approval.approvalId}   (or reject ... --reason "why")`);
    }
  }
  if (status.skills.length > 0) {
    lines.push('Skills:');
    for (const source of status.skills) lines.push(`  ${source.source} (version ${source.version}): ${source.names.join(', ') || 'none'}`);
  }
  if (status.queuedMessages > 0) lines.push(`Queued messages: ${status.queuedMessages} (delivered before the next model step)`);
  if (context.runUrl) lines.push(`Web UI: ${context.runUrl}`);
  return lines.join('\n');
}
