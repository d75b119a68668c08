import type { ModelPurpose, ProgressNote } from './run-types';

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
  return (
    Boolean(value) &&
    typeof value === 'object' &&
    (value as { kind?: unknown }).kind === 'model-text' &&
    typeof (value as { text?: unknown }).text === 'string'
  );
}

/**
 * The heartbeat details of a tool call that reports progress (MCP progress notifications, or
 * `reportProgress` in a tool): the latest note and how many there were, so a client shows each
 * note it sees once and, from the count, knows which of the run's later progress events it
 * already showed.
 */
export interface ToolProgressSnapshot {
  kind: 'tool-progress';
  step: number;
  callId: string;
  toolName: string;
  /** Notes so far; `latest` is note number `count`. */
  count: number;
  latest: ProgressNote;
  at: number;
}

/** What `RunHandle.live()` yields: streamed answer text or a tool's progress, told apart by `kind`. */
export type LiveSnapshot = ModelTextSnapshot | ToolProgressSnapshot;

export function isToolProgressSnapshot(value: unknown): value is ToolProgressSnapshot {
  return (
    Boolean(value) &&
    typeof value === 'object' &&
    (value as { kind?: unknown }).kind === 'tool-progress' &&
    typeof (value as { count?: unknown }).count === 'number'
  );
}
