import { Context } from '@temporalio/activity';

/**
 * An activity's heartbeat, carrying the latest details it reported (model text so far, MCP
 * progress). Temporal keeps only the last heartbeat's details, so the keep-alive beat re-sends
 * them instead of wiping them. Clients read them live with DescribeWorkflowExecution; they never
 * enter the workflow history.
 */
export class LiveHeartbeat {
  private details: unknown = undefined;
  /** Fields every beat carries whatever the snapshot (a model step's spend, the hook running now). */
  private readonly kept = new Map<string, unknown>();

  constructor(private readonly context: Context = Context.current()) {}

  /** Replaces the details and heartbeats them (the worker throttles what reaches the server). */
  report(details: unknown): void {
    this.details = details;
    this.beat();
  }

  /**
   * Sets (or, given undefined, removes) a field that every later beat carries next to the live
   * snapshot, and heartbeats it: state the next attempt of the activity must find
   * (`Context.info.heartbeatDetails`), or that a client reads to say what the activity waits for.
   */
  keep(key: string, value: unknown): void {
    if (value === undefined) this.kept.delete(key);
    else this.kept.set(key, value);
    this.beat();
  }

  beat(): void {
    this.context.heartbeat(this.composed());
  }

  private composed(): unknown {
    if (this.kept.size === 0) return this.details;
    const snapshot = this.details && typeof this.details === 'object' ? this.details : {};
    return { ...snapshot, ...Object.fromEntries(this.kept) };
  }
}

/**
 * Runs `work` while heartbeating at a third of the activity's heartbeat timeout, so a worker that
 * dies mid-call is noticed after that timeout instead of the (long) start-to-close timeout.
 *
 * The first beat comes a third of the timeout in, not at the start: the server counts the
 * heartbeat timeout from the activity's start until the first beat, so a beat at once detects
 * nothing sooner, and it would cost every activity (most finish well within the timeout) a
 * heartbeat call and a write of the run's state on the server.
 */
export async function withHeartbeat<T>(work: (live: LiveHeartbeat) => Promise<T>, live: LiveHeartbeat = new LiveHeartbeat()): Promise<T> {
  const timeoutMs = Context.current().info.heartbeatTimeoutMs;
  if (!timeoutMs) return work(live);
  const timer = setInterval(() => live.beat(), Math.max(100, Math.floor(timeoutMs / 3)));
  try {
    return await work(live);
  } finally {
    clearInterval(timer);
  }
}

/**
 * Reports through a LiveHeartbeat at most every `everyMs`, building the details only when they
 * are sent and always sending the latest ones last: a model streams thousands of deltas, and each
 * report serialises the whole text so far.
 */
export class ThrottledReport {
  private timer: NodeJS.Timeout | undefined;
  private lastSentAt = Number.NEGATIVE_INFINITY; // never sent: the first offer goes at once
  private latest: () => unknown = () => undefined;

  constructor(
    private readonly live: LiveHeartbeat,
    private readonly everyMs: number,
  ) {}

  offer(build: () => unknown): void {
    this.latest = build;
    if (this.timer) return;
    const wait = this.lastSentAt + this.everyMs - Date.now();
    if (wait <= 0) this.send();
    else this.timer = setTimeout(() => this.send(), wait);
  }

  /** Drops a pending report (call when the activity's work is done). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    this.timer = undefined;
    this.lastSentAt = Date.now();
    this.live.report(this.latest());
  }
}
