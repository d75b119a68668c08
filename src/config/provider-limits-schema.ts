// The zod schema of an agent's `provider_limits`: requests and tokens per minute by "provider:model".
import { z } from 'zod';

const MODEL_KEY_PATTERN = /^[a-z][a-z0-9-]*:\S+$/;
const perMinute = z.number().int('must be a whole number').positive('must be more than 0');

/** One model's limit: at least one of requests and tokens per minute. */
export const providerLimitSchema = z
  .strictObject({
    requests_per_minute: perMinute.optional(),
    tokens_per_minute: perMinute.optional(),
  })
  .refine(
    (limit) => limit.requests_per_minute !== undefined || limit.tokens_per_minute !== undefined,
    'must set requests_per_minute, tokens_per_minute or both',
  );

/** One model's limit as a config writes it. */
export type ProviderLimitConfig = z.output<typeof providerLimitSchema>;

/**
 * An agent config's `provider_limits` (docs/provider-limits.md): what the provider account allows
 * each model, shared by every run of the namespace and task queue through one limiter workflow per
 * model. Optional: absent, the config and its hash stay as they were before limits existed.
 * @example
 * parseAgentConfig({ name: 'support', model: 'openai:gpt-4o', provider_limits: { 'openai:gpt-4o': { requests_per_minute: 475, tokens_per_minute: 28_500 } } });
 */
export const providerLimitsSchema = z
  .record(z.string(), providerLimitSchema)
  // Checked here rather than as the record's key schema, whose failure zod reports as "Invalid key in record".
  .superRefine((limits, context) => {
    for (const model of Object.keys(limits).filter((key) => !MODEL_KEY_PATTERN.test(key))) {
      context.addIssue({
        code: 'custom',
        path: [model],
        message: 'must be "provider:model", as the config\'s model field names it ("openai:gpt-4o")',
      });
    }
  })
  .optional();
