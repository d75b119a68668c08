// Reads the worker's price overrides from a JSON file (`AGENT_MODEL_PRICES`), refusing a bad one with the file and field named.
import { readFileSync } from 'node:fs';
import { modelPricesSchema } from '../config/pricing-schema';
import { AgentConfigError } from '../protocol/errors';
import type { ModelPrices } from '../protocol/model-price';

/**
 * The prices in a JSON file: an object of "provider:model" (or "provider:prefix*") keys to
 * `{ input, output, cached_input? }` in USD per million tokens.
 * @throws AgentConfigError naming the file and each invalid field (or why it cannot be read).
 * @example
 * // prices.json: { "openai-compatible:llama3.1*": { "input": 0.2, "output": 0.2 } }
 * const plugin = new AgentPlugin({ tools, prices: loadPriceFile('prices.json') });
 */
export function loadPriceFile(file: string): ModelPrices {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const problem = `${file}: cannot be read as JSON: ${(error as Error).message}`;
    throw new AgentConfigError(`Invalid price file ${problem}`, [problem]);
  }
  const parsed = modelPricesSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${file}: ${issue.path.map(String).join('.') || '(top level)'}: ${issue.message}`);
  throw new AgentConfigError(`Invalid price file ${file}: ${problems.join('; ')}`, problems);
}

/** The price overrides `AGENT_MODEL_PRICES` names (a JSON file), or none when it is unset. */
export function pricesFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ModelPrices {
  const file = environment.AGENT_MODEL_PRICES;
  return file ? loadPriceFile(file) : {};
}
