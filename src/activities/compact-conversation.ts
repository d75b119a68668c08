import { Context } from '@temporalio/activity';
import { classifyProviderError } from '../models/provider-errors';
import type { Message } from '../protocol/messages';
import type { CompactionInput, CompactionResult } from '../protocol/run-types';
import type { ModelStepDependencies } from './model-step';
import { DEFAULT_PRICES, limiterFailure, toApplicationFailure } from './model-step';
import { ErrorCode } from '../protocol/errors';
import { currentRunExecution } from './run-execution';
import { withHeartbeat } from './heartbeat';
import { attemptNumber } from './activity-attempts';
import { rethrowIfWorkerShutdown } from './worker-shutdown';
import { NO_TELEMETRY } from '../telemetry/agent-telemetry';

const COMPACTION_PROMPT =
  'You compress the earlier part of an agent conversation so the agent can continue within its context budget. ' +
  'Write a concise summary of the facts found, tool results that still matter, decisions made and open questions. ' +
  'Do not invent anything.';

/**
 * `limit:<n>` budget awareness: summarises the turns between the task and the recent turns with
 * the agent's own model. The workflow keeps the system prompt, the task, this summary and the
 * recent turns as a new conversation epoch.
 */
export function createCompactConversation(dependencies: Omit<ModelStepDependencies, 'tools'>) {
  return async function compactConversation(input: CompactionInput): Promise<CompactionResult> {
    const context = Context.current();
    const conversation = await dependencies.conversations.load(currentRunExecution(), input.conversation);
    const older = conversation.messages.slice(input.taskIndex + 1, input.keepFrom);
    const messages: Message[] = [{ role: 'user', content: transcript(older) }];
    const attempt = attemptNumber(input.workflowRetries);
    const traced = {
      model: input.model,
      purpose: 'compaction' as const,
      step: input.sequence,
      attempt,
      temperature: 0,
      maxTokens: null,
      system: COMPACTION_PROMPT,
      messages,
    };
    const response = await withHeartbeat(async () => {
      try {
        const { provider, modelId } = dependencies.models.resolve(input.model);
        return await (dependencies.telemetry ?? NO_TELEMETRY).modelCall(traced, () =>
          provider.complete({
            modelId,
            system: COMPACTION_PROMPT,
            messages,
            tools: [],
            temperature: 0,
            maxTokens: null,
            outputSchema: null,
            attempt,
            purpose: 'compaction',
            sequence: input.sequence,
            abortSignal: context.cancellationSignal,
          }),
        );
      } catch (error) {
        // Cancelled by its stopping worker: not the provider's failure, so it uses no retry.
        rethrowIfWorkerShutdown('The compaction of a conversation');
        const classified = classifyProviderError(error);
        throw input.providerLimited && classified.code === ErrorCode.modelRateLimited
          ? limiterFailure(classified, input.workflowRetries)
          : toApplicationFailure(classified, input.workflowRetries);
      }
    });
    return {
      summary: response.text,
      usage: response.usage,
      costUsd: (dependencies.prices ?? DEFAULT_PRICES).costOf(input.model, response.usage, input.price),
    };
  };
}

function transcript(messages: Message[]): string {
  return messages
    .map((message) => {
      if (message.role === 'assistant') {
        const calls = message.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(', ');
        return `assistant: ${message.content}${calls ? ` [called ${calls}]` : ''}`;
      }
      if (message.role === 'tool') return `tool ${message.toolName}${message.isError ? ' (error)' : ''}: ${message.content}`;
      return `user: ${message.content}`;
    })
    .join('\n');
}
