// The gateway's open feeds: one per workflow id, shared by every stream of that run or thread.
import type { Client } from '@temporalio/client';
import { RunFeed, type FeedItem, type FeedRequests } from './run-feed';

/** How long a feed outlives its last stream, so a client that reconnects at once finds it still reading. */
const LINGER_MS = 5_000;
/** Turn starts remembered (the oldest forgotten first). */
const TURN_STARTS_KEPT = 10_000;

interface Entry {
  feed: RunFeed;
  streams: number;
  linger: NodeJS.Timeout | null;
}

/**
 * Hands out shared feeds: the first stream of a workflow id starts its feed, later streams join
 * it, and the feed stops a little after its last stream leaves. So 1,000 clients of one thread
 * cost Temporal what one costs. A gateway has one (`GatewayHandler.feeds`, `RunningGateway.feeds`).
 * @example
 * const gateway = await startGateway({ agents, port: 8787 });
 * const { feeds, streams, requests } = gateway.feeds.stats();
 * console.log(`${streams} streams on ${feeds} feeds; ${requests.describes} describes so far`);
 */
export class FeedRegistry {
  private readonly feeds = new Map<string, Entry>();
  /** Where each turn's events start (`<workflowId>#<turn>` → seq): fixed once logged, so asked once per turn, not per stream. */
  private readonly turnStarts = new Map<string, number>();
  private readonly retired: FeedRequests = { historyPolls: 0, eventQueries: 0, describes: 0 };
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
  ) {}

  /**
   * The items of `workflowId` after event `fromSeq` (see `RunFeed.items`), from its shared feed.
   * Ends when the run has ended and every item was given, or when `signal` aborts.
   */
  async *follow(workflowId: string, fromSeq: number, signal: AbortSignal): AsyncGenerator<FeedItem> {
    if (this.closed) throw new Error('The gateway is stopping: no new streams');
    const entry = this.join(workflowId, fromSeq);
    try {
      yield* entry.feed.items(fromSeq, signal);
    } finally {
      this.leave(workflowId, entry);
    }
  }

  /**
   * The event cursor just before turn `turn` of `workflowId` entered its log, from `find` the first
   * time (one events scan) and from memory after that: a thousand clients opening one turn's stream
   * cost one scan. A turn not found (null) is asked again next time.
   */
  async turnStart(workflowId: string, turn: number, find: () => Promise<number | null>): Promise<number | null> {
    const key = `${workflowId}#${turn}`;
    const known = this.turnStarts.get(key);
    if (known !== undefined) return known;
    const found = await find();
    if (found === null) return null;
    if (this.turnStarts.size >= TURN_STARTS_KEPT) this.turnStarts.delete(this.turnStarts.keys().next().value!);
    this.turnStarts.set(key, found);
    return found;
  }

  /** Open feeds and every request feeds have sent to Temporal so far (for `npm run bench` and health pages). */
  stats(): { feeds: number; streams: number; requests: FeedRequests } {
    const requests = { ...this.retired };
    let streams = 0;
    for (const { feed, streams: count } of this.feeds.values()) {
      streams += count;
      requests.historyPolls += feed.requests.historyPolls;
      requests.eventQueries += feed.requests.eventQueries;
      requests.describes += feed.requests.describes;
    }
    return { feeds: this.feeds.size, streams, requests };
  }

  /** Stops every feed (their streams end) and waits for their last requests. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.feeds.values()];
    for (const entry of entries) this.retire(entry);
    await Promise.allSettled(entries.map((entry) => entry.feed.done));
  }

  private join(workflowId: string, fromSeq: number): Entry {
    let entry = this.feeds.get(workflowId);
    // A feed whose run ended gives its items to no one new: a later stream may be of a new execution.
    if (entry && entry.feed.ended && entry.streams === 0) {
      this.retire(entry);
      entry = undefined;
    }
    if (!entry) {
      entry = { feed: new RunFeed(this.client, this.namespace, workflowId, fromSeq), streams: 0, linger: null };
      this.feeds.set(workflowId, entry);
    }
    if (entry.linger) {
      clearTimeout(entry.linger);
      entry.linger = null;
    }
    entry.streams++;
    return entry;
  }

  private leave(workflowId: string, entry: Entry): void {
    entry.streams--;
    if (entry.streams > 0 || this.feeds.get(workflowId) !== entry) return;
    entry.linger = setTimeout(() => this.retire(entry), LINGER_MS);
    entry.linger.unref();
  }

  private retire(entry: Entry): void {
    if (entry.linger) clearTimeout(entry.linger);
    if (this.feeds.get(entry.feed.workflowId) === entry) this.feeds.delete(entry.feed.workflowId);
    entry.feed.stop();
    this.retired.historyPolls += entry.feed.requests.historyPolls;
    this.retired.eventQueries += entry.feed.requests.eventQueries;
    this.retired.describes += entry.feed.requests.describes;
  }
}
