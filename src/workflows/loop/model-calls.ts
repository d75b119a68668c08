import { ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { ErrorCode } from '../../protocol/errors';
import { findPrice, type ModelPrice } from '../../protocol/model-price';
import type { CompactionInput, ConversationThread, ModelStepInput, ModelStepResult } from '../../protocol/run-types';
import { exhaustedAttempts, retriedCall } from './activity-retries';
import { activitySummary } from '../rules/activity-summary';
import { addUsage } from '../rules/usage-totals';
import { describeFailure, failureType } from '../rules/describe-failure';
import { budgetVerdict, compactionPoint } from '../rules/loop-decisions';
import { enterPhase, RunStop } from './run-lifecycle';
import { costLimitAfterCall, costLimitBeforeCall } from './spend-limits';
import { availableTools, extraToolSpecs, type LoopState } from './loop-state';
import { modelStepHooks, noteModelStepHooks } from './run-hooks';
import { providerLimitApplies, withinProviderLimit } from './provider-limit-gate';
import { settle } from './settle';

/**
 * Model calls of a run, each its own activity with a deterministic id (`step-3.model`,
 * `plan-1.model`): the step reads the conversation through the `conversation` query, so only
 * the reply enters the history. The executor's step applies the budget: over it, the older turns
 * are compacted once and the step retried; still over it, the run stops with `budget_limit`.
 */

/**
 * One model call on a thread (the executor's with the budget and output schema, the planner's
 * without). A dead worker or a timeout is retried for as long as the run lives; the provider's
 * own retryable failures (rate limit, 5xx) up to `max_retries` tries. A context-length error
 * and a cost limit (before the call or after it, `run-cost.ts`) become a `RunStop`; retries that
 * ran out fail the run with `ModelRetriesExhausted` (its cause the last failure), and any other
 * failure fails it with the failure's type.
 */
export function callModel(state: LoopState, thread: ConversationThread, activityId: string, model: string): Promise<ModelStepResult> {
  return callModelThen(state, thread, activityId, model, (reply) => reply);
}

/**
 * `callModel`, with what the caller does with the reply (`andThen`) in the same `.then`, which
 * makes fewer promises than awaiting it (settle.ts); a failure of `andThen` is the caller's, not
 * the model call's.
 */
function callModelThen<T>(
  state: LoopState,
  thread: ConversationThread,
  activityId: string,
  model: string,
  andThen: (reply: ModelStepResult) => T | Promise<T>,
): Promise<T> {
  const request = modelStepRequest(state, thread, model);
  const run = modelStepTries(state, request, model);
  const reply = settle(() => (providerLimitApplies(state, model) ? withinProviderLimit(state, request, activityId, run) : run(activityId, false)));
  return reply.then(
    (value) => andThen(afterModelReply(state, value)),
    (error: unknown) => {
      throw modelCallFailure(state, error, activityId, model);
    },
  );
}

/** A model step's activity input for `thread` (its limits, prices and hooks). */
function modelStepRequest(state: LoopState, thread: ConversationThread, model: string): ModelStepInput {
  const { config, budget } = state;
  const request: ModelStepInput = {
    conversation: state.threads.ref(thread),
    model,
    temperature: config.temperature,
    maxTokens: config.max_tokens,
    toolNames: availableTools(state),
    injectedToolArgs: config.injected_tool_args,
    ...(state.handoffSpecs.length > 0 || state.mcpTools.size > 0 ? { extraToolSpecs: extraToolSpecs(state) } : {}),
    ...(config.subagents?.length ? { subagentChoices: config.subagents } : {}),
    outputSchema: thread === 'executor' ? config.output_type : null,
    step: state.step,
    ...(thread === 'executor' ? {} : { purpose: thread }),
    ...(thread === 'executor' && budget ? { budget } : {}),
    ...agentPrice(state, model),
    ...costLimitBeforeCall(state),
  };
  const hooks = modelStepHooks(state);
  if (hooks) request.hooks = hooks;
  // The nudge is named once, by the executor's next step (its tries share this request).
  if (thread === 'executor' && state.loopNudge !== undefined) {
    request.loopNudge = state.loopNudge;
    state.loopNudge = undefined;
  }
  return request;
}

/** The call `withinProviderLimit` makes: the model step's activity with this run's retries, given the call's id. */
function modelStepTries(state: LoopState, request: ModelStepInput, model: string): (callId: string, limited: boolean) => Promise<ModelStepResult> {
  const { timeouts } = state;
  return (callId, limited) =>
    retriedCall(state, 'model', callId, (attempt) =>
      proxyActivities<AgentActivities>({
        activityId: attempt.activityId,
        summary: activitySummary(attempt.activityId, `model ${model}`),
        startToCloseTimeout: timeouts.modelStepMs,
        heartbeatTimeout: timeouts.heartbeatMs,
        retry: attempt.retry,
      }).modelStep({ ...request, ...attempt.input, ...(limited ? { providerLimited: true } : {}) }),
    );
}

/** What a model call's failure becomes (see `callModel`): a `RunStop`, `ModelRetriesExhausted`, or the failure typed. */
function modelCallFailure(state: LoopState, error: unknown, activityId: string, model: string): unknown {
  const { config } = state;
  if (isCancellation(error)) return error;
  if (failureType(error) === ErrorCode.contextLengthExceeded) {
    return new RunStop('context_length_exceeded', `The conversation no longer fits the context window of ${model}: ${describeFailure(error)}`);
  }
  const attempts = exhaustedAttempts(error);
  if (attempts !== null) {
    return ApplicationFailure.create({
      type: ErrorCode.modelRetriesExhausted,
      message: `Model step ${activityId} (${model}) failed after ${attempts} attempts (max_retries: ${config.max_retries}): ${describeFailure(error)}`,
      nonRetryable: true,
      details: [{ attempts, maxRetries: config.max_retries, lastFailureType: failureType(error) ?? null }],
      cause: error as Error,
    });
  }
  return ApplicationFailure.nonRetryable(
    `Model step ${activityId} (${model}) failed: ${describeFailure(error)}`,
    failureType(error) ?? ErrorCode.modelStepFailed,
  );
}

/** A model reply's usage (with the calls of its lost attempts, which the provider billed too), hook points and cost limit, taken into the run's state. */
function afterModelReply(state: LoopState, reply: ModelStepResult): ModelStepResult {
  for (const lost of reply.lostCalls ?? []) addUsage(state.usage, reply.model, lost.usage, lost.costUsd);
  addUsage(state.usage, reply.model, reply.usage, reply.costUsd);
  noteModelStepHooks(state, reply);
  costLimitAfterCall(state, reply);
  return reply;
}

/**
 * The executor's model step of `state.step`, with budget awareness: compaction first when the
 * prompt is over the budget, a `budget_limit` stop (a `RunStop`) if it still is, and the
 * budget advisory otherwise.
 */
export function executorStep(state: LoopState): Promise<ModelStepResult> {
  return callModelThen(state, 'executor', `step-${state.step}.model`, state.config.model, (reply) => {
    const keepFrom = compactionPoint(reply, state.threads, state.taskIndex);
    return keepFrom === null ? judgeExecutorReply(state, reply, false) : compactAndCallAgain(state, keepFrom, reply);
  });
}

/** Over the budget: compacts the turns before `keepFrom`, then asks the model again. */
async function compactAndCallAgain(state: LoopState, keepFrom: number, reply: ModelStepResult): Promise<ModelStepResult> {
  await compact(state, keepFrom, reply.overBudget!.promptTokens);
  enterPhase(state, 'model');
  return judgeExecutorReply(state, await callModel(state, 'executor', `step-${state.step}.model-after-compaction`, state.config.model), true);
}

/** The budget's verdict on the executor's reply (`compacted`: after a compaction): a `budget_limit` stop, an advisory, or nothing. */
function judgeExecutorReply(state: LoopState, reply: ModelStepResult, compacted: boolean): ModelStepResult {
  const { config, events } = state;
  state.childUnsafeTools = reply.childUnsafeTools ?? [];
  state.toolDescriptions = reply.toolDescriptions ?? {};
  const verdict = budgetVerdict(reply, state.budget, config.budget_awareness, compacted);
  if (verdict.kind === 'stop') {
    events.push({ type: 'budget-stopped', step: state.step, promptTokens: verdict.promptTokens, limitTokens: verdict.limitTokens });
    throw new RunStop('budget_limit', verdict.detail);
  }
  if (verdict.kind === 'advisory') {
    state.lastPromptTokens = verdict.promptTokens;
    events.push({
      type: 'budget-advisory',
      step: state.step,
      promptTokens: verdict.promptTokens,
      contextWindow: verdict.contextWindow,
      percent: verdict.percent,
    });
  }
  return reply;
}

/** Summarises the turns before `keepFrom` into a new conversation epoch (an activity). */
async function compact(state: LoopState, keepFrom: number, tokensBefore: number): Promise<void> {
  const { config, timeouts, taskIndex, step } = state;
  enterPhase(state, 'compacting');
  const request: CompactionInput = {
    conversation: state.threads.ref('executor'),
    model: config.model,
    keepFrom,
    taskIndex,
    sequence: state.compactions++,
    ...agentPrice(state, config.model),
  };
  // Under a provider limit the summary call waits its turn like a model step (its estimate counts the
  // whole conversation, corrected by the usage after).
  const estimated: ModelStepInput = {
    conversation: request.conversation,
    model: config.model,
    temperature: 0,
    maxTokens: null,
    toolNames: [],
    injectedToolArgs: {},
    outputSchema: null,
    step,
  };
  const result = await withinProviderLimit(state, estimated, `step-${step}.compaction`, (callId, limited) =>
    retriedCall(state, 'compaction', callId, (attempt) =>
      proxyActivities<AgentActivities>({
        activityId: attempt.activityId,
        summary: activitySummary(attempt.activityId, 'compact the conversation'),
        startToCloseTimeout: timeouts.modelStepMs,
        heartbeatTimeout: timeouts.heartbeatMs,
        retry: attempt.retry,
      }).compactConversation({ ...request, ...attempt.input, ...(limited ? { providerLimited: true } : {}) }),
    ),
  );
  addUsage(state.usage, config.model, result.usage, result.costUsd);
  const { removedMessages } = state.threads.compact(taskIndex, keepFrom, result.summary);
  state.events.push({ type: 'context-compacted', step, tokensBefore, removedMessages });
}

/** The agent config's own price of `model` for the activity's input (nothing when the config has no `pricing`, as before it existed). */
function agentPrice(state: LoopState, model: string): { price?: ModelPrice } {
  const price = state.config.pricing ? findPrice(state.config.pricing, model) : null;
  return price ? { price } : {};
}
