// What a model costs: the price shape shared by the price table (worker), agent configs and model steps.

/**
 * A model's price in USD per million tokens: input, output, and cached input (prompt-cache reads;
 * the input price when absent). The shape of the worker's price table, of a price file and of an
 * agent config's `pricing`.
 * @example
 * const gpt4o: ModelPrice = { input: 2.5, output: 10, cached_input: 1.25 };
 */
export interface ModelPrice {
  input: number;
  output: number;
  cached_input?: number;
}

/** Prices by "provider:model"; a key ending in `*` is a prefix ("openai:gpt-4o*"), the longest match wins over shorter ones, an exact key over all. */
export type ModelPrices = Record<string, ModelPrice>;

/** The cost in USD of a call's usage at `price`, rounded to a billionth of a dollar (so sums print cleanly). */
export function costOf(usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number }, price: ModelPrice): number {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const usd =
    ((usage.inputTokens - cached) * price.input + cached * (price.cached_input ?? price.input) + usage.outputTokens * price.output) / 1_000_000;
  return roundUsd(usd);
}

/** Rounds a USD amount to a billionth of a dollar: float sums of many small costs stay readable. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/** The price of `model` in `prices`: an exact key first, then the longest `*` prefix key that matches; null when none does. */
export function findPrice(prices: ModelPrices, model: string): ModelPrice | null {
  const exact = prices[model];
  if (exact) return exact;
  let best: [string, ModelPrice] | null = null;
  for (const [key, price] of Object.entries(prices)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best[0].length)) best = [prefix, price];
  }
  return best ? best[1] : null;
}

/**
 * A usage's cost in words for people: "$0.0123", "$0.0123 + 2 unpriced calls" (the cost is then a
 * lower bound), "cost unknown" (runs before pricing).
 */
export function describeCost(usage: { costUsd?: number; unpricedCalls?: number }): string {
  if (usage.costUsd === undefined) return 'cost unknown';
  const cost = `$${formatUsd(usage.costUsd)}`;
  const unpriced = usage.unpricedCalls ?? 0;
  return unpriced > 0 ? `${cost} + ${unpriced} unpriced call${unpriced === 1 ? '' : 's'}` : cost;
}

/** USD with four decimals, or more significant digits when smaller (tiny calls are not shown as $0.0000). */
export function formatUsd(usd: number): string {
  if (usd === 0 || Math.abs(usd) >= 0.0001) return usd.toFixed(4);
  return usd.toPrecision(2);
}
