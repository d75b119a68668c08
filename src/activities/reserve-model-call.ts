// The activity that asks a provider limiter for a model call's turn: it counts the prompt and signals (starting if need be) the limiter workflow.
import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { promptTokens } from '../budget/budget-advisory';
import {
  limitKey,
  limiterWorkflowId,
  limitRequestSignal,
  ProviderLimitWireName,
  type LimitRequest,
  type ProviderLimiterInput,
  type ReserveModelCallInput,
} from '../protocol/provider-limits';
import type { ToolRegistry } from '../tools/tool-registry';
import type { ConversationSource } from './conversation-source';
import { modelToolSpecs } from './model-tool-specs';
import { currentRunExecution } from './run-execution';

export interface ReserveModelCallDependencies {
  /** A client on the worker's namespace, to signal the limiter workflows. */
  limiterClient: Client;
  tools: ToolRegistry;
  conversations: ConversationSource;
}

/** Output tokens a call without `max_tokens` is charged before it runs (corrected by its usage after). */
export const DEFAULT_OUTPUT_TOKEN_ESTIMATE = 1_024;

/**
 * How long a run waits for a grant (of its provider limiter or concurrency slots) before it asks
 * again: the `DURABLE_AGENTS_REASK_MS` variable of the worker, for tests that lose a limiter on
 * purpose; unset, the run's own default (5 minutes). Returned by the request activities, so the
 * run's wait is recorded in its history and replays the same.
 */
export function limiterReaskMs(): number | undefined {
  const value = Number(process.env.DURABLE_AGENTS_REASK_MS);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Sends the model call's request to the limiter of its task queue and model, starting the limiter
 * when none runs (signal-with-start: one limiter per key, whichever run comes first). Its estimate
 * of the call's tokens is the prompt counted with the project's token counter (the conversation
 * and tool schemas the model step will send) plus `max_tokens` (or
 * {@link DEFAULT_OUTPUT_TOKEN_ESTIMATE}); only counted when the limit has tokens per minute. The
 * grant comes back to the run as a signal, so a retried activity only repeats the request, which
 * the limiter answers once.
 */
export function createReserveModelCall(dependencies: ReserveModelCallDependencies) {
  return async function reserveModelCall(input: ReserveModelCallInput): Promise<{ estimatedTokens: number; reaskAfterMs?: number }> {
    const info = Context.current().info;
    let estimatedTokens = 0;
    if (input.limit.tokensPerMinute !== undefined) {
      const step = input.step;
      const conversation = await dependencies.conversations.load(currentRunExecution(), step.conversation);
      const tools = modelToolSpecs(dependencies.tools, step.toolNames, step.injectedToolArgs, step.extraToolSpecs, step.subagentChoices);
      estimatedTokens = promptTokens(conversation.system, tools, conversation.messages) + (step.maxTokens ?? DEFAULT_OUTPUT_TOKEN_ESTIMATE);
    }
    const key = limitKey(info.taskQueue, input.model);
    const request: LimitRequest = {
      requestId: input.requestId,
      workflowId: currentRunExecution().workflowId,
      estimatedTokens,
      priorityKey: input.priorityKey,
      fairnessKey: input.fairnessKey,
      ...(input.fairnessWeight !== undefined ? { fairnessWeight: input.fairnessWeight } : {}),
      limit: input.limit,
    };
    const limiterInput: ProviderLimiterInput = { key };
    await dependencies.limiterClient.workflow.signalWithStart(ProviderLimitWireName.limiterWorkflow, {
      workflowId: limiterWorkflowId(key),
      taskQueue: info.taskQueue,
      args: [limiterInput],
      signal: limitRequestSignal,
      signalArgs: [request],
      staticSummary: `provider limit of ${input.model} on ${info.taskQueue}`,
      // The limiter serves every tenant: its own tasks go first.
      priority: { priorityKey: 1 },
    });
    const reaskAfterMs = limiterReaskMs();
    return { estimatedTokens, ...(reaskAfterMs !== undefined ? { reaskAfterMs } : {}) };
  };
}
