import type { EventPage, NewRunEvent, RunEvent } from '../shared/run-events';

/**
 * The run's live event log, bounded: the oldest events are trimmed past `capacity`, and a reader
 * whose cursor fell behind is told how many it missed. Deterministic (workflow clock).
 */
export class EventLog {
  private readonly entries: RunEvent[] = [];
  private nextSeq = 1;

  /** `carried`: the newest events of the run this one continues; numbering goes on after them. */
  constructor(
    private readonly capacity: number,
    carried: RunEvent[] = [],
  ) {
    this.entries.push(...carried.slice(-capacity));
    this.nextSeq = (carried.at(-1)?.seq ?? 0) + 1;
  }

  /** The newest `count` events, to carry over on continue-as-new. */
  tail(count: number): RunEvent[] {
    return this.entries.slice(-count);
  }

  push(event: NewRunEvent): RunEvent {
    const stamped = { ...event, seq: this.nextSeq++, at: Date.now() } as RunEvent;
    this.entries.push(stamped);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return stamped;
  }

  /** Events with `seq > cursor`, at most `limit`. */
  page(cursor: number, limit: number, finished: boolean): EventPage {
    const firstKept = this.entries[0]?.seq ?? this.nextSeq;
    const missed = Math.max(0, firstKept - cursor - 1);
    const events = this.entries.filter((event) => event.seq > cursor).slice(0, Math.max(1, limit));
    const nextCursor = events.at(-1)?.seq ?? Math.max(cursor, firstKept - 1);
    const drained = nextCursor >= this.nextSeq - 1;
    return { events, nextCursor, missed, finished: finished && drained };
  }
}
