// One shared reader of a run's (or thread's) events and live text, however many streams follow it.
import { setMaxListeners } from 'node:events';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { isModelTextSnapshot } from '../../protocol/live-snapshots';
import type { RunEvent } from '../../protocol/run-events';
import { eventsQuery } from '../../protocol/run-messages';
import { watchHistory } from '../../client/history-watch';
import { pause, Signal } from './change-signal';

/** What a stream reads from a feed: a logged event, or the whole text so far of a model step's attempt (live, never recorded). */
export type FeedItem =
  | { kind: 'event'; event: RunEvent }
  | { kind: 'text'; step: number; attempt: number; text: string }
  /** Everything read so far was given; the next item waits for the run to move. */
  | { kind: 'caught-up' };

/** A stream's feed stopped under it: the gateway is closing. */
export class FeedStoppedError extends Error {
  constructor(workflowId: string) {
    super(`The gateway stopped following ${workflowId}: it is shutting down`);
    this.name = 'FeedStoppedError';
  }
}

/** Requests a feed sent to Temporal, by kind: what its streams cost the server. */
export interface FeedRequests {
  historyPolls: number;
  eventQueries: number;
  describes: number;
}

/** How often a feed reads heartbeats while an activity is open (live text and progress are only there). */
const LIVE_POLL_MS = 250;
/** For this long after an activity opens, and until its first text shows, heartbeats are read more often (`nextLookIn`). */
const FIRST_TEXT_WINDOW_MS = 1_500;
/** The slowest and the fastest heartbeat reads in that window. */
const FIRST_TEXT_POLL_MS = 80;
const FIRST_TEXT_FASTEST_POLL_MS = 10;
/** Events a feed keeps for streams that join or lag; older ones are read again from the run. */
const KEPT_EVENTS = 2_000;

/**
 * The events and live text of one workflow id, read once for all its subscribers. It waits for the
 * history to grow (a long poll, `watchHistory`) instead of asking again and again, then reads the
 * new events with one `events` query; while an activity is open it also reads the heartbeats
 * (`describe`, 4 a second) for the text a model step is writing. Nothing it does touches the history.
 */
export class RunFeed {
  private readonly events: RunEvent[] = [];
  private readonly live = new Map<string, { step: number; attempt: number; text: string }>();
  private readonly changed = new Signal();
  private readonly stopping = new AbortController();
  private readonly workflow: WorkflowHandle;
  private lastSeq: number;
  private pendingActivities = 0;
  /** When the open activities last changed, and when the feed started (performance.now()). */
  private activitiesSince = 0;
  private readonly startedAt = performance.now();
  private closedSeen = false;
  private finished = false;
  private failure: string | null = null;
  private readWanted = true;
  /** An events read is under way: streams have not caught up until it ends, however many pages it gave. */
  private reading = false;
  readonly requests: FeedRequests = { historyPolls: 0, eventQueries: 0, describes: 0 };
  readonly done: Promise<void>;

  constructor(
    private readonly client: Client,
    namespace: string,
    readonly workflowId: string,
    /** The seq after which this feed starts keeping events. */
    fromSeq: number,
  ) {
    this.lastSeq = fromSeq;
    // Every stream of the feed listens for its stop: a thousand streams are a thousand listeners, not a leak.
    setMaxListeners(0, this.stopping.signal);
    this.workflow = client.workflow.getHandle(workflowId);
    this.done = Promise.all([this.watch(namespace), this.readLoop(), this.liveLoop()]).then(() => undefined);
  }

  /** Whether the run's chain of executions has closed and every event was read. */
  get ended(): boolean {
    return this.finished;
  }

  /** Stops reading (the last subscriber left). */
  stop(): void {
    this.stopping.abort();
    this.changed.notify();
  }

  /**
   * The items after event `fromSeq`: logged events in order, with live text snapshots between
   * them whenever a model step's text grows. Ends when the run has ended and everything was given,
   * or when `signal` aborts. A stream that starts before the events this feed keeps reads the
   * older ones from the run first.
   */
  async *items(fromSeq: number, signal: AbortSignal): AsyncGenerator<FeedItem> {
    let seq = fromSeq;
    const textSeen = new Map<string, string>();
    if (this.firstKept() > seq + 1)
      for await (const event of this.olderEvents(seq, this.firstKept() - 1)) {
        yield { kind: 'event', event };
        seq = event.seq;
      }
    const stop = AbortSignal.any([signal, this.stopping.signal]);
    while (!stop.aborted) {
      const waited = this.changed.next(stop);
      for (const event of this.events) {
        if (event.seq <= seq) continue;
        yield { kind: 'event', event };
        seq = event.seq;
      }
      for (const [key, snapshot] of this.live) {
        if (textSeen.get(key) === snapshot.text) continue;
        textSeen.set(key, snapshot.text);
        yield { kind: 'text', ...snapshot };
      }
      if (this.finished && seq >= this.lastSeq) {
        if (this.failure !== null) throw new Error(this.failure);
        return;
      }
      if (!this.readWanted && !this.reading) yield { kind: 'caught-up' };
      await waited;
    }
    if (this.stopping.signal.aborted && !signal.aborted) throw new FeedStoppedError(this.workflowId);
  }

  private firstKept(): number {
    return this.events[0]?.seq ?? this.lastSeq + 1;
  }

  private async *olderEvents(after: number, upTo: number): AsyncGenerator<RunEvent> {
    for (let cursor = after; cursor < upTo;) {
      this.requests.eventQueries++;
      const page = await this.workflow.query(eventsQuery, cursor, 500);
      const wanted = page.events.filter((event) => event.seq <= upTo);
      yield* wanted;
      if (wanted.length < page.events.length || page.events.length === 0) return;
      cursor = page.nextCursor;
    }
  }

  /** Follows the history: every page of new events asks for one events read. */
  private async watch(namespace: string): Promise<void> {
    for (let attempt = 0; !this.stopping.signal.aborted; attempt++) {
      try {
        for await (const growth of watchHistory(this.client, namespace, this.workflowId, {
          signal: this.stopping.signal,
          onRequest: () => this.requests.historyPolls++,
        })) {
          if (growth.pendingActivities !== this.pendingActivities) this.activitiesSince = performance.now();
          this.pendingActivities = growth.pendingActivities;
          if (growth.closed && growth.continuedAs === null) this.closedSeen = true;
          this.wantRead();
          attempt = 0;
        }
        if (!this.stopping.signal.aborted) this.closedSeen = true;
        this.wantRead();
        return;
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        // A restarting server or a dropped connection: poll again after a pause that grows to 5 s.
        await pause(Math.min(5_000, 250 * 2 ** attempt), this.stopping.signal);
        void error;
      }
    }
  }

  private wantRead(): void {
    this.readWanted = true;
    this.changed.notify();
  }

  /** Reads new events whenever the history grew; retries a failed read (no worker to answer yet) until it succeeds. */
  private async readLoop(): Promise<void> {
    for (let failures = 0; !this.stopping.signal.aborted && !this.finished;) {
      if (!this.readWanted) {
        await this.changed.next(this.stopping.signal);
        continue;
      }
      this.readWanted = false;
      const closedBefore = this.closedSeen;
      try {
        await this.readNewEvents();
        failures = 0;
        if (closedBefore) this.finish(null);
      } catch (error) {
        this.readWanted = true;
        failures++;
        if (closedBefore && failures >= 20) this.finish(`the run ended but its events could not be read: ${(error as Error).message}`);
        await pause(Math.min(5_000, 200 * 2 ** failures), this.stopping.signal);
      }
    }
  }

  private async readNewEvents(): Promise<void> {
    this.reading = true;
    try {
      for (;;) {
        this.requests.eventQueries++;
        const page = await this.workflow.query(eventsQuery, this.lastSeq, 500);
        for (const event of page.events) {
          if (event.seq <= this.lastSeq) continue;
          this.events.push(event);
          this.lastSeq = event.seq;
          if (event.type === 'text-produced') for (const key of this.live.keys()) if (key.startsWith(`${event.step}#`)) this.live.delete(key);
        }
        if (this.events.length > KEPT_EVENTS) this.events.splice(0, this.events.length - KEPT_EVENTS);
        if (page.events.length === 0 || page.finished) break;
        // Streams get a page's events at once: the read that proves the log drained is one more round trip.
        this.changed.notify();
      }
    } finally {
      this.reading = false;
    }
    // Streams waiting for this read wake up, with new events or to learn they have caught up.
    this.changed.notify();
  }

  private finish(failure: string | null): void {
    this.finished = true;
    this.failure = failure;
    this.live.clear();
    this.changed.notify();
  }

  /** While an activity is open, reads its heartbeats for the text a model step has written so far. */
  private async liveLoop(): Promise<void> {
    // A feed starts reading heartbeats at once: a stream usually opens as its turn starts, before
    // the history shows the model step, and the describe itself says which activities are open.
    let describedOpen = true;
    while (!this.stopping.signal.aborted && !this.finished) {
      if (this.pendingActivities === 0 && !describedOpen) {
        if (this.live.size > 0) this.live.clear();
        await this.changed.next(this.stopping.signal);
        continue;
      }
      try {
        this.requests.describes++;
        const description = await this.workflow.describe();
        describedOpen = (description.raw.pendingActivities?.length ?? 0) > 0 || performance.now() - this.startedAt < FIRST_TEXT_WINDOW_MS;
        for (const activity of description.raw.pendingActivities ?? []) {
          const payloads = activity.heartbeatDetails?.payloads;
          if (!payloads?.length) continue;
          const details = await decodeFromPayloadsAtIndex<unknown>(this.client.options.loadedDataConverter, 0, payloads).catch(() => undefined);
          if (!isModelTextSnapshot(details)) continue;
          const key = `${details.step}#${details.attempt}`;
          if (this.live.get(key)?.text === details.text || this.stepFinished(details.step)) continue;
          this.live.set(key, { step: details.step, attempt: details.attempt, text: details.text });
          this.changed.notify();
        }
      } catch {
        // Described again at the next tick.
      }
      await pause(this.nextLookIn(), this.stopping.signal);
    }
  }

  /**
   * How long until the next heartbeat read. Until an activity's first text shows, the feed looks
   * more often, most often just after the activity opened (a quarter of the time it has been open,
   * from 10 ms up to 80 ms): the first words are what a reader waits for, and a fast model's come
   * within tens of milliseconds. Over the first 1.5 s that is about 27 reads instead of 19 at a
   * steady 80 ms; after it, or once text shows, 4 a second.
   */
  private nextLookIn(): number {
    const open = performance.now() - Math.max(this.activitiesSince, this.startedAt);
    if (open >= FIRST_TEXT_WINDOW_MS || this.live.size > 0) return LIVE_POLL_MS;
    return Math.min(FIRST_TEXT_POLL_MS, Math.max(FIRST_TEXT_FASTEST_POLL_MS, open / 4));
  }

  private stepFinished(step: number): boolean {
    for (let index = this.events.length - 1; index >= 0 && index >= this.events.length - 50; index--) {
      const event = this.events[index]!;
      if (event.type === 'text-produced' && event.step === step) return true;
    }
    return false;
  }
}
