// The model step's check against a run's cost limit: what the call could cost at most, before it is made.
import type { PriceTable } from '../models/model-prices';
import type { Message, ToolSpec } from '../protocol/messages';
import { costOf, type ModelPrice } from '../protocol/model-price';
import type { ModelStepResult } from '../protocol/run-types';
import { promptTokens } from './budget-advisory';

/**
 * Output tokens assumed for the worst case when the agent sets no `max_tokens`: the default output
 * cap of the providers we ship (the AI SDK's Anthropic default). Set `max_tokens` for a tight bound.
 */
export const WORST_CASE_OUTPUT_TOKENS = 4_096;

/** What the check needs: the call, its prompt, and the USD the run may still spend. */
export interface WorstCaseCall {
  model: string;
  agentPrice?: ModelPrice;
  maxTokens: number | null;
  remainingUsd: number;
  system: string;
  tools: ToolSpec[];
  messages: Message[];
  /** The prompt's tokens when already counted (budget awareness). */
  countedPromptTokens?: number;
}

/**
 * The `overCostLimit` refusal of a call whose worst case is more than what is left, or null when
 * it may go ahead. The worst case is the prompt's tokens (counted with js-tiktoken's o200k_base,
 * exact for current OpenAI models and close for others) at the full input price (no cache
 * discount) plus `max_tokens` (or `WORST_CASE_OUTPUT_TOKENS`) at the output price. A model without
 * a price is refused: a limit that cannot be checked is not silently ignored.
 */
export function worstCaseRefusal(prices: PriceTable, call: WorstCaseCall): ModelStepResult['overCostLimit'] | null {
  const maxOutputTokens = call.maxTokens ?? WORST_CASE_OUTPUT_TOKENS;
  const price = prices.priceOf(call.model, call.agentPrice);
  if (!price) return { worstCaseUsd: 0, remainingUsd: call.remainingUsd, promptTokens: 0, maxOutputTokens, unpriced: true };
  const tokens = call.countedPromptTokens ?? promptTokens(call.system, call.tools, call.messages);
  const worstCaseUsd = costOf({ inputTokens: tokens, outputTokens: maxOutputTokens }, price);
  return worstCaseUsd > call.remainingUsd ? { worstCaseUsd, remainingUsd: call.remainingUsd, promptTokens: tokens, maxOutputTokens } : null;
}
