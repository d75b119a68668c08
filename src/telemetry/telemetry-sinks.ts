// What the workflow sandbox tells the worker's metrics through a sink: run and approval events, never on replay.
import type { Sinks } from '@temporalio/workflow';
import type { ApprovalOutcome, StopReason } from '../protocol/run-types';

/** One event of a run that a metric counts. Times are the workflow clock, so a wait is the same on every worker. */
export type TelemetryRunEvent =
  | { kind: 'run-finished'; agent: string; model: string; stopReason: StopReason | 'failed' }
  | { kind: 'tool-denied'; agent: string; toolName: string }
  | { kind: 'approval-requested'; agent: string; toolName: string }
  | { kind: 'approval-decided'; agent: string; toolName: string; outcome: ApprovalOutcome; waitSeconds: number };

/**
 * The sink the tracing workflow interceptor calls. The worker's side is injected with
 * `callDuringReplay: false`, so a replayed workflow (another worker after a crash, a cache
 * eviction) counts nothing twice.
 */
export interface AgentTelemetrySinks extends Sinks {
  agentTelemetry: {
    runEvent(event: TelemetryRunEvent): void;
  };
}
