// How a run's or a turn's steps ended: what the loop returns to the workflow that ran it.
import type { AgentRunResult, StopReason } from '../../protocol/run-types';

/** How a run's (or a turn's) steps ended: the stop reason, the answer, and what else the result carries. */
export interface StepsEnd {
  reason: StopReason;
  output: string;
  extra: Partial<AgentRunResult>;
}
