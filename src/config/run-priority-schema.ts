// The zod schema of a run's priority and fairness key (a start option): checked before the run starts, given to Temporal and to provider limiters.
import { z } from 'zod';
import { AgentConfigError } from '../protocol/errors';

/**
 * A run's place among others (docs/provider-limits.md), as Temporal's task `Priority`:
 * `priorityKey` 1 (first) to 5 (last; unset runs count as 3), `fairnessKey` the tenant (or user)
 * whose runs share one turn, `fairnessWeight` that tenant's share of Temporal's task dispatch.
 * The run's activities inherit it; provider limiters serve priority first, then tenants in turn.
 * @example
 * await agents.startRun({ config, task, priority: { priorityKey: 2, fairnessKey: 'tenant-acme' } });
 */
export const runPrioritySchema = z.strictObject({
  priorityKey: z.number().int('must be a whole number').min(1, 'must be 1 (first) to 5 (last)').max(5, 'must be 1 (first) to 5 (last)').optional(),
  fairnessKey: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters (Temporal refuses longer keys)').optional(),
  fairnessWeight: z.number().min(0.001, 'must be 0.001 to 1000').max(1000, 'must be 0.001 to 1000').optional(),
});

/** A validated run priority. */
export type RunPriority = z.output<typeof runPrioritySchema>;

/**
 * Validates a run's `priority` start option.
 * @throws AgentConfigError naming each invalid field (`priority.priorityKey: must be 1 (first) to 5 (last)`).
 * @example parseRunPriority({ priorityKey: 1, fairnessKey: 'tenant-acme' })
 */
export function parseRunPriority(input: unknown): RunPriority {
  const result = runPrioritySchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => `priority.${key}: unknown field (known: priorityKey, fairnessKey, fairnessWeight)`).join('; ')
      : `priority${issue.path.length > 0 ? `.${issue.path.join('.')}` : ''}: ${issue.message}`,
  );
  throw new AgentConfigError(`Invalid run priority:\n  ${problems.join('\n  ')}`, problems);
}
