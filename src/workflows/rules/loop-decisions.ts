import type { SearchAttributePair } from '@temporalio/common';
import type { AgentConfig } from '../../config/agent-config';
import type { CarriedState, ConversationThread, ModelStepResult, StepBudget } from '../../protocol/run-types';
import { AgentNameAttribute, AgentSkillSourcesAttribute, AgentStatusAttribute } from '../../protocol/search-attributes';
import { handoffTarget, handoffToolName } from './handoff-tools';
import { ErrorCode } from '../../protocol/errors';
import { isSubagentTool } from './subagent-calls';

/**
 * The agent loop's decisions, pure (no Temporal calls): when the budget compacts or stops the
 * run, which handoff of a step wins, where a tool call goes, and when the run continues as new.
 * The workflow modules carry them out; test/unit/loop-decisions.test.ts covers them without a
 * server. What follows a model reply, and the step limit, are in src/protocol/step-moves.ts,
 * shared with the client's fork planning.
 */

/** The first step of this run: 1, or the step after the last one of the run it continues. */
export function firstStep(carried: CarriedState | undefined): number {
  return (carried?.step ?? 0) + 1;
}

/** Why a run that used all its steps stopped. */
export function maxStepsDetail(config: Pick<AgentConfig, 'max_steps'>): string {
  return `Stopped after max_steps (${config.max_steps}) model steps without a final answer`;
}

/**
 * Where to compact after a reply over the budget: the index the kept part starts at, or null
 * when the reply fits or there is nothing old enough to summarise (then the run stops instead).
 */
export function compactionPoint(
  reply: ModelStepResult,
  conversation: { compactionKeepFrom(taskIndex: number): number | null },
  taskIndex: number,
): number | null {
  if (!reply.overBudget) return null;
  return conversation.compactionKeepFrom(taskIndex);
}

/** What the budget says about the executor's final reply of a step. */
export type BudgetVerdict =
  | { kind: 'none' }
  | { kind: 'advisory'; promptTokens: number; contextWindow: number; percent: number }
  | { kind: 'stop'; promptTokens: number; limitTokens: number; detail: string };

/**
 * A reply still over the budget (after any compaction) stops the run, saying whether the step
 * compacted first (`compacted`) or there was nothing old enough to summarise; otherwise, with
 * budget awareness on, the prompt's share of the window is reported (percent to one decimal).
 */
export function budgetVerdict(
  reply: ModelStepResult,
  budget: StepBudget | null,
  budgetAwareness: AgentConfig['budget_awareness'],
  compacted = true,
): BudgetVerdict {
  if (reply.overBudget) {
    const { promptTokens, limitTokens } = reply.overBudget;
    const after = compacted
      ? 'even after compaction'
      : 'and nothing could be compacted (only the task and the latest turns are left, which compaction keeps)';
    return {
      kind: 'stop',
      promptTokens,
      limitTokens,
      detail: `The prompt needs ${promptTokens} tokens, above the budget of ${limitTokens} (${budgetAwareness} of a ${budget?.contextWindow}-token window), ${after}; no further model call was made.`,
    };
  }
  if (!budget || reply.promptTokens === undefined) return { kind: 'none' };
  const percent = Math.round((reply.promptTokens / budget.contextWindow) * 1000) / 10;
  return { kind: 'advisory', promptTokens: reply.promptTokens, contextWindow: budget.contextWindow, percent };
}

/**
 * A handoff call: the first target of an executor step wins (calling it again is fine); a call
 * naming another target is refused with the text the model sees. The planner sees the handoff
 * tools (seed: the executor's tool set) but cannot use them: handing the run over is the
 * executor's move, so a planner's call is refused and changes nothing (it may put the handoff in
 * its plan instead).
 */
export function claimHandoff(
  current: string | null,
  target: string,
  caller: ConversationThread = 'executor',
): { handoffTo: string } | { refusal: string; errorCode: string } {
  if (caller === 'planner') {
    return {
      refusal: `Error: the planner cannot hand off: only the executor transfers the conversation. If agent '${target}' should take over, say so in the plan; the executor can call '${handoffToolName(target)}'.`,
      errorCode: ErrorCode.handoffRefused,
    };
  }
  if (current !== null && current !== target)
    return { refusal: `Error: already handing off to '${current}' in this step`, errorCode: ErrorCode.toolFailed };
  return { handoffTo: target };
}

/**
 * Where a tool call goes, checked in this order: a handoff of this agent, an unknown tool
 * (refused), then (after an approval when the tool is gated) sub-agents run as child workflows,
 * MCP tools through the MCP activity, every other tool through the tool activity.
 */
export type ToolRoute =
  { kind: 'handoff'; target: string } | { kind: 'unknown'; available: string } | { kind: 'subagents' | 'mcp' | 'activity'; gated: boolean };

/** The route of a call to tool `name`, given the run's tools now and its MCP tools. */
export function toolRoute(
  name: string,
  config: Pick<AgentConfig, 'handoffs' | 'hitl_tools'>,
  available: readonly string[],
  mcpTools: { has(name: string): boolean },
): ToolRoute {
  const target = handoffTarget(name, config);
  if (target !== null) return { kind: 'handoff', target };
  if (!available.includes(name)) return { kind: 'unknown', available: available.join(', ') || 'none' };
  const gated = config.hitl_tools.includes(name);
  if (isSubagentTool(name)) return { kind: 'subagents', gated };
  return { kind: mcpTools.has(name) ? 'mcp' : 'activity', gated };
}

/**
 * Where a run continues as new when its input sets no limit: 2,000 events or 2 MiB of history,
 * half of what Temporal suggests by default. A worker that does not hold the run in its cache
 * replays the whole history in one workflow task, about 1 ms per event on a busy 2-core worker
 * (`npm run bench`, section `replay-cost`): at 4,000 events that task took 5 to 6 s, close to the
 * 10 s workflow-task timeout; at 2,000 it stays near 2 s. See docs/long-runs.md.
 */
export const DEFAULT_CONTINUE_AS_NEW_POINT = { events: 2_000, bytes: 2 * 1024 * 1024 } as const;

/**
 * Whether the run continues as new before this step: never before its first step (a fresh run
 * that continued at once would loop); otherwise at `historySizeLimitBytes` bytes of history or
 * `historyEventLimit` events when the input sets them, else when Temporal suggests it (history
 * near its event or byte limits), or at `DEFAULT_CONTINUE_AS_NEW_POINT` for what the input leaves
 * unset.
 */
export function shouldContinueAsNew(
  step: number,
  history: { historyLength: number; historySize: number; continueAsNewSuggested: boolean },
  limits: { historyEventLimit?: number; historySizeLimitBytes?: number },
): boolean {
  if (step <= 1) return false;
  if (limits.historySizeLimitBytes !== undefined && history.historySize >= limits.historySizeLimitBytes) return true;
  if (limits.historyEventLimit !== undefined ? history.historyLength >= limits.historyEventLimit : history.continueAsNewSuggested) return true;
  return (
    (limits.historyEventLimit === undefined && history.historyLength >= DEFAULT_CONTINUE_AS_NEW_POINT.events) ||
    (limits.historySizeLimitBytes === undefined && history.historySize >= DEFAULT_CONTINUE_AS_NEW_POINT.bytes)
  );
}

/**
 * The search attributes of the run a handoff starts (they replace the run's own): the target's
 * name, status and skill sources, so the skills watcher signals the run that now follows the
 * target's sources.
 */
export function handoffSearchAttributes(next: Pick<AgentConfig, 'name' | 'skill_sources'>): SearchAttributePair[] {
  return [
    { key: AgentNameAttribute, value: next.name },
    { key: AgentStatusAttribute, value: 'running' },
    ...(next.skill_sources.length > 0 ? [{ key: AgentSkillSourcesAttribute, value: next.skill_sources }] : []),
  ] as SearchAttributePair[];
}
