import type { ToolProgressSnapshot } from '../protocol/live-snapshots';

/**
 * Shows each progress note of a tool call once: live from heartbeat snapshots while the call
 * runs, and from the run's `mcp-progress` events (which arrive when the call completes) only for
 * the notes no snapshot showed.
 */
export class LiveProgress {
  /** Note numbers (1-based) already shown, per call. */
  private readonly shown = new Map<string, Set<number>>();
  /** Progress events seen so far, per call: the next one is note number count + 1. */
  private readonly eventsSeen = new Map<string, number>();

  /** Whether to print this live snapshot (its note was not shown yet). */
  snapshot(snapshot: ToolProgressSnapshot): boolean {
    const shown = this.shownFor(snapshot.callId);
    if (shown.has(snapshot.count)) return false;
    shown.add(snapshot.count);
    return true;
  }

  /** Whether to print this progress event (no snapshot showed its note). */
  event(callId: string): boolean {
    const number = (this.eventsSeen.get(callId) ?? 0) + 1;
    this.eventsSeen.set(callId, number);
    const shown = this.shownFor(callId);
    if (shown.has(number)) return false;
    shown.add(number);
    return true;
  }

  private shownFor(callId: string): Set<number> {
    let shown = this.shown.get(callId);
    if (!shown) this.shown.set(callId, (shown = new Set()));
    return shown;
  }
}
