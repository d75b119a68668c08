import type { ModelPurpose } from './run-types';

/**
 * The heartbeat details of a model step while its answer streams: the text so far of this
 * attempt. A client polls them (DescribeWorkflowExecution) to show the answer as it is written;
 * they never enter the workflow history, and a retried step starts a new snapshot.
 */
export interface ModelTextSnapshot {
  kind: 'model-text';
  step: number;
  purpose: ModelPurpose;
  attempt: number;
  text: string;
  /** When the worker took this snapshot (ms since the epoch, the worker's clock). */
  at: number;
}

export function isModelTextSnapshot(value: unknown): value is ModelTextSnapshot {
  return Boolean(value) && typeof value === 'object' && (value as { kind?: unknown }).kind === 'model-text' && typeof (value as { text?: unknown }).text === 'string';
}
