// The model steps that do not call the model: a prompt over the `limit` budget, a call whose worst case is more than the run has left.
import { worstCaseRefusal } from '../budget/worst-case-cost';
import type { PriceTable } from '../models/model-prices';
import type { Message, ToolSpec } from '../protocol/messages';
import type { ModelStepInput, ModelStepResult } from '../protocol/run-types';

/**
 * The result of a step that does not call the model: the prompt is over the `limit` budget
 * (`overBudget`), or the call's worst case is more than the run has left (`overCostLimit`). Null:
 * the call may go.
 */
export function refuseCall(
  input: ModelStepInput,
  prices: PriceTable,
  prompt: { system: string; tools: ToolSpec[]; messages: Message[]; tokens: number | undefined },
): ModelStepResult | null {
  const none = {
    message: { role: 'assistant' as const, content: '', toolCalls: [] },
    usage: { inputTokens: 0, outputTokens: 0 },
    model: input.model,
  };
  const { tokens } = prompt;
  if (input.budget && tokens !== undefined) {
    const limitTokens = input.budget.limitPercent === null ? null : Math.floor((input.budget.contextWindow * input.budget.limitPercent) / 100);
    if (limitTokens !== null && tokens > limitTokens)
      return { ...none, promptTokens: tokens, overBudget: { promptTokens: tokens, limitTokens }, costUsd: 0 };
  }
  if (!input.costLimit) return null;
  const overCostLimit = worstCaseRefusal(prices, {
    model: input.model,
    agentPrice: input.price,
    maxTokens: input.maxTokens,
    remainingUsd: input.costLimit.remainingUsd,
    system: prompt.system,
    tools: prompt.tools,
    messages: prompt.messages,
    countedPromptTokens: tokens,
  });
  return overCostLimit ? { ...none, costUsd: 0, overCostLimit } : null;
}
