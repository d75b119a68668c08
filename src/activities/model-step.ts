import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ModelRegistry } from '../models/model-registry';
import { ModelError } from '../models/model-provider';
import { classifyProviderError } from '../models/ai-sdk-provider';
import type { ToolRegistry } from '../tools/tool-registry';
import type { ModelStepInput, ModelStepResult } from '../shared/run-types';
import type { ConversationSource } from './conversation-source';
import { withHeartbeat } from './heartbeat';
import { checkStructuredOutput } from './structured-output';
import { modelToolSpecs } from './model-tool-specs';
import { currentRunExecution } from './run-execution';

export interface ModelStepDependencies {
  models: ModelRegistry;
  tools: ToolRegistry;
  conversations: ConversationSource;
}

/**
 * One model call. Its input names the conversation (epoch, message count) instead of carrying it;
 * its result, the assistant message, is the only place that message is recorded.
 * Failures are classified: rate limits, 5xx and timeouts are retried by Temporal (honouring a
 * retry-after); auth, bad request and context length are non-retryable with a stable `type`.
 */
export function createModelStep(dependencies: ModelStepDependencies) {
  return async function modelStep(input: ModelStepInput): Promise<ModelStepResult> {
    const context = Context.current();
    const conversation = await dependencies.conversations.load(currentRunExecution(), input.conversation);
    const response = await withHeartbeat(async () => {
      try {
        const { provider, modelId } = dependencies.models.resolve(input.model);
        return await provider.complete({
          modelId,
          system: conversation.system,
          messages: conversation.messages,
          tools: modelToolSpecs(dependencies.tools, input.toolNames, input.injectedToolArgs),
          temperature: input.temperature,
          maxTokens: input.maxTokens,
          outputSchema: input.outputSchema,
          attempt: context.info.attempt,
          abortSignal: context.cancellationSignal,
        });
      } catch (error) {
        throw toApplicationFailure(classifyProviderError(error));
      }
    });
    const result: ModelStepResult = {
      message: { role: 'assistant', content: response.text, toolCalls: response.toolCalls },
      usage: response.usage,
      model: input.model,
    };
    if (input.outputSchema && response.toolCalls.length === 0) {
      const check = checkStructuredOutput(response.text, input.outputSchema);
      if (check.ok) result.structuredOutput = check.value;
      else result.outputError = check.error;
    }
    return result;
  };
}

function toApplicationFailure(error: ModelError): ApplicationFailure {
  return ApplicationFailure.create({
    type: error.code,
    message: error.message,
    nonRetryable: !error.retryable,
    nextRetryDelay: error.retryAfterMs,
  });
}
