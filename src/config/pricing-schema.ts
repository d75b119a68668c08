// The zod schema of model prices: an agent config's `pricing` and the worker's price file share it.
import { z } from 'zod';

const MODEL_KEY_PATTERN = /^[a-z][a-z0-9-]*:\S*$/;
const usdPerMillion = z.number().finite().min(0, 'must be a price in USD per million tokens, 0 or more');

/** One model's price in USD per million tokens (`cached_input` defaults to `input`). */
export const modelPriceSchema = z.strictObject({
  input: usdPerMillion,
  output: usdPerMillion,
  cached_input: usdPerMillion.optional(),
});

/**
 * Prices by "provider:model" (a key ending in `*` is a prefix: "openai:gpt-4o*"). Used by the agent
 * config's `pricing` and by the worker's `AGENT_MODEL_PRICES` file.
 * @example
 * modelPricesSchema.parse({ 'openai-compatible:llama3.1*': { input: 0.2, output: 0.2 } });
 */
export const modelPricesSchema = z.record(
  z.string().regex(MODEL_KEY_PATTERN, 'must be "provider:model" or a prefix ending in * ("openai:gpt-4o*")'),
  modelPriceSchema,
);

/** An agent config's `pricing`: optional (absent, the config and its hash stay as they were before pricing existed). */
export const agentPricingSchema = modelPricesSchema.optional();

/**
 * A spend limit in USD, more than zero; optional (absent: no limit). Cost limits are checked before each model call (against the
 * worst case the call can cost) and after it.
 */
export const costLimitSchema = z.number().finite().positive('must be an amount in USD, more than 0').optional();
