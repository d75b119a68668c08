// The worker's price table: the default prices of the models we ship providers for, and the user's overrides.
import { costOf, findPrice, type ModelPrice, type ModelPrices } from '../protocol/model-price';

/**
 * List prices in USD per million tokens (input, output, cached input) as the providers published
 * them on their pricing pages in November 2025. Prices change: override them (`AgentPlugin({ prices })`,
 * `AGENT_MODEL_PRICES`, an agent config's `pricing`) rather than trust these for billing. Keys are
 * prefixes of "provider:model" (the longest match wins), so dated snapshots ("gpt-4o-2024-08-06",
 * "claude-sonnet-4-20250514") find their family. `openai-compatible:` has no defaults: its models are
 * self-hosted or a gateway's, so their calls are unpriced until a price is given. `scripted:` is
 * offline and free.
 * @example
 * import { DEFAULT_MODEL_PRICES } from 'durable-agents/worker';
 *
 * DEFAULT_MODEL_PRICES['openai:gpt-4o-mini*']; // { input: 0.15, output: 0.6, cached_input: 0.075 }
 */
export const DEFAULT_MODEL_PRICES: Readonly<ModelPrices> = {
  'scripted:*': { input: 0, output: 0 },
  'openai:gpt-4o*': { input: 2.5, output: 10, cached_input: 1.25 },
  'openai:gpt-4o-mini*': { input: 0.15, output: 0.6, cached_input: 0.075 },
  'openai:gpt-4.1*': { input: 2, output: 8, cached_input: 0.5 },
  'openai:gpt-4.1-mini*': { input: 0.4, output: 1.6, cached_input: 0.1 },
  'openai:gpt-4.1-nano*': { input: 0.1, output: 0.4, cached_input: 0.025 },
  'openai:gpt-5*': { input: 1.25, output: 10, cached_input: 0.125 },
  'openai:gpt-5-mini*': { input: 0.25, output: 2, cached_input: 0.025 },
  'openai:gpt-5-nano*': { input: 0.05, output: 0.4, cached_input: 0.005 },
  'openai:o1*': { input: 15, output: 60, cached_input: 7.5 },
  'openai:o3*': { input: 2, output: 8, cached_input: 0.5 },
  'openai:o3-mini*': { input: 1.1, output: 4.4, cached_input: 0.55 },
  'openai:o4-mini*': { input: 1.1, output: 4.4, cached_input: 0.275 },
  'anthropic:claude-opus-4*': { input: 15, output: 75, cached_input: 1.5 },
  'anthropic:claude-opus-4-5*': { input: 5, output: 25, cached_input: 0.5 },
  'anthropic:claude-sonnet-4*': { input: 3, output: 15, cached_input: 0.3 },
  'anthropic:claude-haiku-4-5*': { input: 1, output: 5, cached_input: 0.1 },
  'anthropic:claude-3-7-sonnet*': { input: 3, output: 15, cached_input: 0.3 },
  'anthropic:claude-3-5-sonnet*': { input: 3, output: 15, cached_input: 0.3 },
  'anthropic:claude-3-5-haiku*': { input: 0.8, output: 4, cached_input: 0.08 },
  'anthropic:claude-3-opus*': { input: 15, output: 75, cached_input: 1.5 },
  'anthropic:claude-3-haiku*': { input: 0.25, output: 1.25, cached_input: 0.03 },
};

/**
 * Prices of models as a worker knows them: an agent's own `pricing` first (it comes with the model
 * step), then the worker's table: `DEFAULT_MODEL_PRICES` with the worker's overrides laid over it
 * key by key. A model found nowhere has no
 * price: its calls are counted as unpriced (`unpricedCalls`), never priced at zero.
 * @example
 * import { AgentPlugin, PriceTable } from 'durable-agents/worker';
 *
 * const prices = { 'openai-compatible:llama3.1*': { input: 0.2, output: 0.2 } };
 * new PriceTable(prices).priceOf('openai-compatible:llama3.1-70b'); // { input: 0.2, output: 0.2 }
 * const plugin = new AgentPlugin({ tools, prices });
 */
export class PriceTable {
  /** The defaults with the overrides laid over them key by key: an override of "openai:gpt-4o*" leaves "openai:gpt-4o-mini*" as it was. */
  private readonly prices: Readonly<ModelPrices>;

  constructor(overrides: Readonly<ModelPrices> = {}) {
    this.prices = { ...DEFAULT_MODEL_PRICES, ...overrides };
  }

  /** The price of "provider:model": the agent's `pricing` entry, else the table's (exact key, else longest prefix); null when unknown. */
  priceOf(model: string, agentPrice?: ModelPrice): ModelPrice | null {
    return agentPrice ?? findPrice(this.prices, model);
  }

  /** What a call of `model` with this usage cost in USD, or null when its price is unknown. */
  costOf(model: string, usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number }, agentPrice?: ModelPrice): number | null {
    const price = this.priceOf(model, agentPrice);
    return price ? costOf(usage, price) : null;
  }
}
