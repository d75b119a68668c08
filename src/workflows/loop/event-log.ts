import type { EventPage, NewRunEvent, RunEvent } from '../../protocol/run-events';
import { jsonBytes, newestWithin, QUERY_ANSWER_LIMIT_BYTES } from '../../protocol/payload-size';
import { notifyRunEventObserver } from './run-event-observer';

const DEFAULT_PAGE = 200;

/** The longest prefix of `events` within `limitBytes` of JSON, at least one event. */
function oldestWithin(events: RunEvent[], limitBytes: number): RunEvent[] {
  let bytes = 0;
  let end = 0;
  while (end < events.length && (end === 0 || bytes + jsonBytes(events[end]) <= limitBytes)) bytes += jsonBytes(events[end++]);
  return events.slice(0, end);
}

/** Characters of each text an event keeps when a continuation carries it. */
const CARRIED_EVENT_TEXT_LIMIT = 500;

/**
 * An event as a continuation carries it: every string longer than CARRIED_EVENT_TEXT_LIMIT
 * (a tool result's content, a model's text, long arguments) cut, with `…`. A live reader that
 * needs the whole text has it in the step's own events or in `history`.
 */
export function summarizeEvent(event: RunEvent): RunEvent {
  return cutStrings(event) as RunEvent;
}

function cutStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length > CARRIED_EVENT_TEXT_LIMIT ? `${value.slice(0, CARRIED_EVENT_TEXT_LIMIT)}…` : value;
  if (Array.isArray(value)) return value.map(cutStrings);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, cutStrings(field)]));
}

/**
 * The run's live event log, bounded: the oldest events are trimmed past `capacity`, and a reader
 * whose cursor fell behind is told how many it missed. Deterministic (workflow clock).
 */
export class EventLog {
  private readonly entries: RunEvent[] = [];
  private nextSeq = 1;

  /**
   * `carried`: the newest events of the run this one continues; numbering goes on after them, or
   * after `lastSeq` (the previous execution's newest event, carried or not) when given.
   */
  constructor(
    private readonly capacity: number,
    carried: RunEvent[] = [],
    lastSeq = 0,
  ) {
    this.entries.push(...carried.slice(-capacity));
    this.nextSeq = Math.max(carried.at(-1)?.seq ?? 0, lastSeq) + 1;
  }

  /** The newest `count` events within `limitBytes` of JSON (each passed through `summarize` first), to carry over on continue-as-new. */
  tail(count: number, limitBytes = Number.POSITIVE_INFINITY, summarize: (event: RunEvent) => RunEvent = (event) => event): RunEvent[] {
    return newestWithin(this.entries.slice(-count).map(summarize), limitBytes);
  }

  /** The sequence number of the newest event (0 before the first): a reader's cursor for "from now on". */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  push(event: NewRunEvent): RunEvent {
    const stamped = { ...event, seq: this.nextSeq++, at: Date.now() } as RunEvent;
    this.entries.push(stamped);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    notifyRunEventObserver(stamped);
    return stamped;
  }

  /**
   * Events with `seq > cursor`, at most `limit` and at most QUERY_ANSWER_LIMIT_BYTES of them (at
   * least one). A missing or malformed cursor reads from the start; a missing limit is 200.
   */
  page(cursor: number, limit: number, finished: boolean): EventPage {
    cursor = Number.isFinite(cursor) && cursor > 0 ? Math.floor(cursor) : 0;
    limit = Number.isFinite(limit) && limit > 0 ? Math.floor(limit) : DEFAULT_PAGE;
    const firstKept = this.entries[0]?.seq ?? this.nextSeq;
    const missed = Math.max(0, firstKept - cursor - 1);
    const events = oldestWithin(this.entries.filter((event) => event.seq > cursor).slice(0, limit), QUERY_ANSWER_LIMIT_BYTES);
    const nextCursor = events.at(-1)?.seq ?? Math.max(cursor, firstKept - 1);
    const drained = nextCursor >= this.nextSeq - 1;
    return { events, nextCursor, missed, finished: finished && drained };
  }
}
