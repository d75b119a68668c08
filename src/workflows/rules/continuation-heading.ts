// The heading of an execution that continues a run (continue-as-new or handoff), pure.
import type { CarriedState } from '../../protocol/run-types';

/**
 * What an execution that continues a run is, for the top of its current details: Temporal keeps a
 * run's static summary on its first execution only (continue-as-new cannot set one), so the
 * executions after a handoff or a long history say here which agent works on which task and why
 * it is a new execution. Null for a run's first execution, which has its summary.
 * @example
 * continuationHeading('billing', 'Refund order 7', { step: 2, continuations: 1, handoffs: [{ from: 'triage', to: 'billing', step: 2 }], ... });
 * // "billing (handed off from triage after step 2): Refund order 7"
 */
export function continuationHeading(
  agent: string,
  task: string,
  carried: Pick<CarriedState, 'step' | 'continuations' | 'handoffs'> | undefined,
): string | null {
  if (!carried) return null;
  const flatTask = task.replace(/\s+/g, ' ').trim();
  const shownTask = flatTask.length > 100 ? `${flatTask.slice(0, 99)}…` : flatTask;
  const handoff = carried.handoffs?.at(-1);
  const why =
    handoff && handoff.to === agent && handoff.step === carried.step
      ? `handed off from ${handoff.from} after step ${handoff.step}`
      : `continued as new after step ${carried.step}, execution ${carried.continuations + 1}`;
  // A thread's executions have no task of their own (their turns do).
  return shownTask ? `${agent} (${why}): ${shownTask}` : `${agent} (${why})`;
}
