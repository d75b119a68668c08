// The zod schemas of concurrency caps: an agent's `max_concurrent_runs` and a start's `concurrency` option.
import { z } from 'zod';
import { AgentConfigError } from '../protocol/errors';

/**
 * An agent config's `max_concurrent_runs` (docs/provider-limits.md, "Concurrency caps"): at most
 * this many runs of the agent (by name) at once on a task queue; further runs wait, queued, and
 * start in turn. Optional: absent, the config and its hash stay as they were before caps existed.
 * @example
 * parseAgentConfig({ name: 'support', model: 'openai:gpt-4o', max_concurrent_runs: 20 });
 */
export const maxConcurrentRunsSchema = z.number().int('must be a whole number').positive('must be more than 0').optional();

/**
 * A run's `concurrency` start option: at most `limit` runs started with the same `key` (a tenant,
 * a user) hold a slot at once on the task queue; the others wait, queued durably.
 * @example
 * await agents.startRun({ config, task, concurrency: { key: 'tenant-acme', limit: 5 } });
 */
export const runConcurrencySchema = z.strictObject({
  key: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  limit: z.number().int('must be a whole number').positive('must be more than 0'),
});

/** A validated `concurrency` start option. */
export type RunConcurrency = z.output<typeof runConcurrencySchema>;

/**
 * Validates a run's `concurrency` start option.
 * @throws AgentConfigError naming each invalid field (`concurrency.limit: must be more than 0`).
 * @example parseRunConcurrency({ key: 'tenant-acme', limit: 5 })
 */
export function parseRunConcurrency(input: unknown): RunConcurrency {
  const result = runConcurrencySchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => `concurrency.${key}: unknown field (known: key, limit)`).join('; ')
      : `concurrency${issue.path.length > 0 ? `.${issue.path.join('.')}` : ''}: ${issue.message}`,
  );
  throw new AgentConfigError(`Invalid run concurrency:\n  ${problems.join('\n  ')}`, problems);
}
