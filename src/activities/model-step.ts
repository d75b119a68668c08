import { ApplicationFailure, Context } from '@temporalio/activity';
import { withBudgetAdvisories, promptTokens } from '../budget/budget-advisory';
import type { ModelRegistry } from '../models/model-registry';
import { ModelError } from '../models/model-provider';
import { classifyProviderError } from '../models/provider-errors';
import type { ToolRegistry } from '../tools/tool-registry';
import type { ModelStepInput, ModelStepResult } from '../shared/run-types';
import type { ConversationSource } from './conversation-source';
import { ThrottledReport, withHeartbeat } from './heartbeat';
import type { ModelTextSnapshot } from '../shared/live-snapshots';
import { checkStructuredOutput } from './structured-output';
import { modelToolSpecs } from './model-tool-specs';
import { currentRunExecution } from './run-execution';
import { attemptNumber, failureForWorkflow } from './activity-attempts';
import type { WorkflowRetriesInput } from '../shared/run-types';

/** Streamed text goes into heartbeat details at most this often (the worker throttles further). */
const TEXT_REPORT_EVERY_MS = 100;

export interface ModelStepDependencies {
  models: ModelRegistry;
  tools: ToolRegistry;
  conversations: ConversationSource;
}

/**
 * One model call. Its input names the conversation (thread, epoch, message count) instead of
 * carrying it; its result, the assistant message, is the only place that message is recorded.
 * With budget awareness it counts the prompt: `per-message` adds advisories to what the model
 * sees; `limit` returns `overBudget` without calling the model when the prompt is too big.
 * Failures are classified: rate limits, 5xx and timeouts are retried by Temporal (honouring a
 * retry-after); auth, bad request and context length are non-retryable with a stable `type`.
 */
export function createModelStep(dependencies: ModelStepDependencies) {
  return async function modelStep(input: ModelStepInput): Promise<ModelStepResult> {
    const context = Context.current();
    const conversation = await dependencies.conversations.load(currentRunExecution(), input.conversation);
    const tools = [...modelToolSpecs(dependencies.tools, input.toolNames, input.injectedToolArgs), ...(input.extraToolSpecs ?? [])];
    let messages = conversation.messages;
    let tokens: number | undefined;
    if (input.budget) {
      if (input.budget.mode === 'per-message') messages = withBudgetAdvisories(conversation.system, tools, messages, input.budget.contextWindow);
      tokens = promptTokens(conversation.system, tools, messages);
      const limitTokens = input.budget.limitPercent === null ? null : Math.floor((input.budget.contextWindow * input.budget.limitPercent) / 100);
      if (limitTokens !== null && tokens > limitTokens) {
        return {
          message: { role: 'assistant', content: '', toolCalls: [] },
          usage: { inputTokens: 0, outputTokens: 0 },
          model: input.model,
          promptTokens: tokens,
          overBudget: { promptTokens: tokens, limitTokens },
        };
      }
    }
    const purpose = input.purpose ?? 'executor';
    const attempt = attemptNumber(input.workflowRetries);
    const response = await withHeartbeat(async (live) => {
      let streamedText = '';
      const reports = new ThrottledReport(live, TEXT_REPORT_EVERY_MS);
      const onTextDelta = (delta: string) => {
        streamedText += delta;
        reports.offer((): ModelTextSnapshot => ({ kind: 'model-text', step: input.step, purpose, attempt, text: streamedText, at: Date.now() }));
      };
      try {
        const { provider, modelId } = dependencies.models.resolve(input.model);
        return await provider.complete({
          modelId,
          system: conversation.system,
          messages,
          tools,
          temperature: input.temperature,
          maxTokens: input.maxTokens,
          outputSchema: input.outputSchema,
          attempt,
          purpose,
          step: input.step,
          abortSignal: context.cancellationSignal,
          onTextDelta,
        });
      } catch (error) {
        throw toApplicationFailure(classifyProviderError(error), input.workflowRetries);
      } finally {
        reports.stop();
      }
    });
    const childUnsafeTools = input.toolNames.filter((name) => dependencies.tools.get(name)?.childSafe === false);
    const result: ModelStepResult = {
      message: { role: 'assistant', content: response.text, toolCalls: response.toolCalls },
      usage: response.usage,
      model: input.model,
      ...(tokens !== undefined ? { promptTokens: tokens } : {}),
      // Tool properties live on the worker; the workflow learns them from the step that may spawn.
      ...(childUnsafeTools.length > 0 ? { childUnsafeTools } : {}),
    };
    if (input.outputSchema && response.toolCalls.length === 0) {
      const check = checkStructuredOutput(response.text, input.outputSchema);
      if (check.ok) result.structuredOutput = check.value;
      else result.outputError = check.error;
    }
    return result;
  };
}

/**
 * A classified provider failure as the activity's failure: for the workflow to retry when the run
 * retries provider failures itself, else for Temporal's retry policy (runs before that patch).
 */
export function toApplicationFailure(error: ModelError, workflowRetries?: WorkflowRetriesInput): ApplicationFailure {
  if (workflowRetries) {
    return failureForWorkflow(error.code, error.message, {
      retryable: error.retryable,
      attempts: attemptNumber(workflowRetries),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    });
  }
  return ApplicationFailure.create({
    type: error.code,
    message: error.message,
    nonRetryable: !error.retryable,
    nextRetryDelay: error.retryAfterMs,
  });
}
