import type { AgentConfig } from '../config/agent-config';
import { budgetMode, contextWindowOf } from '../config/agent-config-rules';
import type { Message, ToolCall, ToolMessage, Usage } from '../protocol/messages';
import type {
  AgentRunInput,
  ApprovalRecord,
  CarriedState,
  ModelUsage,
  PlanArtifact,
  StepBudget,
  ToolResult,
  UsageSummary,
} from '../protocol/run-types';
import { roundUsd } from '../protocol/model-price';
import { formatDuration } from '../config/duration';
import { ErrorCode } from '../protocol/errors';
import { buildToolResult } from '../protocol/tool-results';

/**
 * Pure rules of the agent loop, free of Temporal calls so they are unit-tested without a server.
 */

/**
 * The executor's system prompt: the instructions (the config's, or those the run resolved:
 * run-instructions.ts), plus the output contract when there is one.
 */
export function buildSystemPrompt(config: AgentConfig, instructions: string = config.instructions): string {
  const parts = [instructions.trim()];
  if (config.output_type) {
    parts.push(
      'When you give your final answer, reply with only a JSON value (no prose) that matches this JSON Schema:\n' +
        JSON.stringify(config.output_type),
    );
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The conversation a run starts from: any prior messages, then the task. */
export function initialMessages(input: AgentRunInput): Message[] {
  return [...(input.messages ?? []), { role: 'user', content: input.task }];
}

/** Usage before the first call: no tokens, no cost. */
export function emptyUsage(): UsageSummary {
  return { inputTokens: 0, outputTokens: 0, byModel: {}, costUsd: 0, unpricedCalls: 0 };
}

/**
 * Adds one call of `model` to a run's usage: its tokens, and its cost as the worker priced it
 * (`null`: price unknown; `undefined`: a worker before pricing) — an unpriced call is counted in
 * `unpricedCalls`, never as zero.
 */
export function addUsage(summary: UsageSummary, model: string, usage: Usage, costUsd?: number | null): void {
  const perModel = (summary.byModel[model] ??= { inputTokens: 0, outputTokens: 0 });
  for (const target of [summary, perModel]) {
    target.inputTokens += usage.inputTokens;
    target.outputTokens += usage.outputTokens;
    if (usage.cachedInputTokens) target.cachedInputTokens = (target.cachedInputTokens ?? 0) + usage.cachedInputTokens;
    if (typeof costUsd === 'number') target.costUsd = roundUsd((target.costUsd ?? 0) + costUsd);
    else target.unpricedCalls = (target.unpricedCalls ?? 0) + 1;
  }
}

/** Adds a whole run's usage (a sub-agent's) to `summary`, model by model. */
export function addRunUsage(summary: UsageSummary, run: UsageSummary): void {
  for (const [model, used] of Object.entries(run.byModel)) {
    const perModel = (summary.byModel[model] ??= { inputTokens: 0, outputTokens: 0 });
    for (const target of [summary, perModel]) addModelUsage(target, used);
  }
}

function addModelUsage(target: ModelUsage, used: ModelUsage): void {
  target.inputTokens += used.inputTokens;
  target.outputTokens += used.outputTokens;
  if (used.cachedInputTokens) target.cachedInputTokens = (target.cachedInputTokens ?? 0) + used.cachedInputTokens;
  if (used.costUsd) target.costUsd = roundUsd((target.costUsd ?? 0) + used.costUsd);
  if (used.unpricedCalls) target.unpricedCalls = (target.unpricedCalls ?? 0) + used.unpricedCalls;
}

/** The cost of a run so far in USD (priced calls; 0 for runs before pricing). */
export function spentUsd(usage: UsageSummary): number {
  return usage.costUsd ?? 0;
}

export function toToolMessage(result: ToolResult): ToolMessage {
  return {
    role: 'tool',
    toolCallId: result.callId,
    toolName: result.toolName,
    content: result.content,
    isError: result.isError,
  };
}

/** A tool result made in the workflow itself (no tool activity ran): sub-agents, refusals. */
export function workflowToolResult(
  call: ToolCall,
  step: number,
  startedAt: number,
  completedAt: number,
  content: string,
  errorCode?: string,
): ToolResult {
  return buildToolResult({ call, step, content, startedAt, completedAt, errorCode });
}

/** An error result made in the workflow itself, for example an unknown tool. */
export function workflowErrorResult(call: ToolCall, step: number, now: number, content: string, errorCode: string): ToolResult {
  return workflowToolResult(call, step, now, now, content, errorCode);
}

/**
 * The error result of a call a tool-policy rule or a before-tool hook denied (`ToolDenied`,
 * status `denied`): the tool did not run. Who denied it joins its metadata (`decided_by`).
 */
export function deniedResult(call: ToolCall, step: number, now: number, content: string, injectedArgs: Record<string, unknown>): ToolResult {
  const result = buildToolResult({ call, step, content, startedAt: now, completedAt: now, errorCode: ErrorCode.toolDenied, injectedArgs });
  return { ...result, metadata: { ...result.metadata, status: 'denied' } };
}

/** The text of the last assistant message, for a run that stops early. */
export function lastAssistantText(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant' && message.content) return message.content;
  }
  return '';
}

/** Tool-result content kept in the run result; the full content is in the history, once. */
export const RESULT_CONTENT_LIMIT = 1_000;

/** A tool result as the run result carries it: long content cut, so the result stays small. */
export function summarizeToolResult(result: ToolResult): ToolResult {
  if (result.content.length <= RESULT_CONTENT_LIMIT) return result;
  return { ...result, content: `${result.content.slice(0, RESULT_CONTENT_LIMIT)}…`, contentTruncated: true };
}

/** The result the model sees for a gated call that was rejected or timed out: the tool never ran. */
export function unapprovedResult(call: ToolCall, step: number, approval: ApprovalRecord): ToolResult {
  const decidedAt = approval.decidedAt ?? approval.expiresAt;
  const rejected = approval.outcome === 'rejected';
  const content = rejected
    ? `Error: the call to '${call.name}' was rejected${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}${approval.reason ? `: ${approval.reason}` : ''}. The tool did not run.`
    : `Error: the call to '${call.name}' was not approved within ${formatDuration(approval.expiresAt - approval.requestedAt)} (timed out). The tool did not run.`;
  return {
    callId: call.id,
    toolName: call.name,
    content,
    isError: true,
    errorCode: rejected ? ErrorCode.toolRejected : ErrorCode.approvalTimedOut,
    step,
    metadata: {
      status: rejected ? 'rejected' : 'timed_out',
      started_at: decidedAt,
      completed_at: decidedAt,
      execution_time_ms: 0,
      approval_status: rejected ? 'rejected' : 'timed_out',
      approval_id: approval.approvalId,
      injected_args: approval.injectedArgs,
      offloaded_artifact_id: null,
      approval_decided_by: approval.decidedBy,
      approval_reason: approval.reason,
    },
  };
}

/** The planner's system prompt when `planning_instructions` is empty. */
export const DEFAULT_PLANNER_PROMPT =
  'You are the planning phase of an agent. Read the task and the tools available, then reply with a short ' +
  'numbered plan of the steps to take (one line each). You may call tools to look things up first. ' +
  'Do not carry out the task: the executor will follow your plan.';

/** The plan as a structured artifact: the text and its numbered (or bulleted) lines. */
export function planArtifact(text: string, model: string, plannerSteps: number): PlanArtifact {
  const steps = text
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*])\s+(.*\S)\s*$/.exec(line)?.[1])
    .filter((line): line is string => line !== undefined);
  return { text, steps, model, plannerSteps };
}

/** The task message the executor sees when a plan was made: the original task, then the plan. */
export function taskWithPlan(task: string, plan: PlanArtifact): string {
  return `${task}\n\nPlan from the planning phase:\n${plan.text}`;
}

/** Budget awareness of a config, as model steps apply it; null when off. */
export function stepBudget(config: AgentConfig): StepBudget | null {
  const mode = budgetMode(config);
  const contextWindow = contextWindowOf(config);
  if (mode.kind === 'off' || contextWindow === null) return null;
  return { mode: mode.kind, limitPercent: mode.kind === 'limit' ? mode.percent : null, contextWindow };
}

/** Turns (an assistant message and the tool results after it) kept verbatim by compaction. */
export const KEEP_RECENT_TURNS = 2;

/**
 * Where the kept part of a conversation starts when compacting: at the assistant message that
 * opens the last `KEEP_RECENT_TURNS` turns, so a tool call is never separated from its results.
 * Null when there is nothing older than that to summarise.
 */
export function compactionKeepFrom(messages: readonly Message[], taskIndex: number): number | null {
  let keepFrom = messages.length;
  let turns = 0;
  for (let index = messages.length - 1; index > taskIndex && turns < KEEP_RECENT_TURNS; index--) {
    if (messages[index]?.role === 'assistant') {
      keepFrom = index;
      turns++;
    }
  }
  return keepFrom > taskIndex + 1 ? keepFrom : null;
}

/** The conversation after compaction: everything up to the task, the summary, the recent turns. */
export function compactedMessages(messages: readonly Message[], taskIndex: number, keepFrom: number, summary: string): Message[] {
  return [
    ...messages.slice(0, taskIndex + 1),
    { role: 'user', content: `Summary of the earlier part of this conversation:\n${summary}` },
    ...messages.slice(keepFrom),
  ];
}

/**
 * What an execution that continues a run is, for the top of its current details: Temporal keeps a
 * run's static summary on its first execution only (continue-as-new cannot set one), so the
 * executions after a handoff or a long history say here which agent works on which task and why
 * it is a new execution. Null for a run's first execution, which has its summary.
 * @example
 * continuationHeading('billing', 'Refund order 7', { step: 2, continuations: 1, handoffs: [{ from: 'triage', to: 'billing', step: 2 }], ... });
 * // "billing (handed off from triage after step 2): Refund order 7"
 */
export function continuationHeading(
  agent: string,
  task: string,
  carried: Pick<CarriedState, 'step' | 'continuations' | 'handoffs'> | undefined,
): string | null {
  if (!carried) return null;
  const flatTask = task.replace(/\s+/g, ' ').trim();
  const shownTask = flatTask.length > 100 ? `${flatTask.slice(0, 99)}…` : flatTask;
  const handoff = carried.handoffs?.at(-1);
  const why =
    handoff && handoff.to === agent && handoff.step === carried.step
      ? `handed off from ${handoff.from} after step ${handoff.step}`
      : `continued as new after step ${carried.step}, execution ${carried.continuations + 1}`;
  // A thread's executions have no task of their own (their turns do).
  return shownTask ? `${agent} (${why}): ${shownTask}` : `${agent} (${why})`;
}
