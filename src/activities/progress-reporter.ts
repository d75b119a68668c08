import type { ToolProgressSnapshot } from '../protocol/live-snapshots';
import type { ProgressNote } from '../protocol/run-types';
import type { LiveHeartbeat } from './heartbeat';

/**
 * Collects a tool call's progress notes (they return with its result, for the run's event log)
 * and shows each one live as the call's heartbeat details, unless the agent turned progress off.
 */
export class ProgressReporter {
  readonly notes: ProgressNote[] = [];

  constructor(
    private readonly live: LiveHeartbeat,
    private readonly call: { step: number; callId: string; toolName: string; quiet: boolean },
  ) {}

  /** One progress report: how far, out of how much (when known), and an optional message. */
  report(progress: number, total?: number, message?: string): void {
    const note: ProgressNote = { progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) };
    this.notes.push(note);
    if (this.call.quiet) return;
    const { step, callId, toolName } = this.call;
    const snapshot: ToolProgressSnapshot = { kind: 'tool-progress', step, callId, toolName, count: this.notes.length, latest: note, at: Date.now() };
    this.live.report(snapshot);
  }
}
