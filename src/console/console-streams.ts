// Live updates of console pages by Server-Sent Events: the inbox's pending approvals, a run's events and streamed text.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AgentClient } from '../client/agent-client';
import type { EventPage } from '../protocol/run-events';
import { eventsQuery } from '../protocol/run-messages';
import { inboxFingerprint, readInbox } from './console-reads';

/**
 * The console's open live feeds, so that stopping the console ends them and waits for their last
 * Temporal calls (a call still in flight when its client's connection closes fails noisily).
 */
export class LiveFeeds {
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<void>>();

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /** Runs one feed's loop, tracked until it ends. */
  track(feed: () => Promise<void>): Promise<void> {
    const running = feed().finally(() => this.running.delete(running));
    this.running.add(running);
    return running;
  }

  /** Ends every feed and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }
}

/**
 * Sends `changed` whenever the set of pending approvals changes (a new request, a decision, a
 * timeout, a run that stopped answering). Polls visibility and the runs' status queries: nothing
 * is added to any history.
 */
export function inboxStream(context: Context, agents: AgentClient, pollMs: number, feeds: LiveFeeds): Response {
  return streamSSE(context, (stream) =>
    feeds.track(async () => {
      let last: string | null = null;
      while (!stream.aborted && !feeds.stopped) {
        const fingerprint = await readInbox(agents).then(inboxFingerprint, () => last);
        if (last !== null && fingerprint !== last) await stream.writeSSE({ event: 'changed', data: '' });
        last = fingerprint;
        await stream.sleep(pollMs);
      }
    }),
  );
}

/**
 * A run's live feed: `changed` when the run logged new events (a step ended, a tool ran, an
 * approval was asked or decided) or closed, and `live` with the text a running model step has
 * written so far (from its heartbeats, never recorded). Ends when the client goes away.
 */
export function runStream(context: Context, agents: AgentClient, workflowId: string, pollMs: number, feeds: LiveFeeds): Response {
  return streamSSE(context, (stream) =>
    feeds.track(async () => {
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      feeds.signal.addEventListener('abort', () => aborted.abort(), { once: true });
      const run = agents.getRun(workflowId);
      const streamLive = (async () => {
        while (!aborted.signal.aborted) {
          try {
            for await (const snapshot of run.live({ signal: aborted.signal, pollMs: 250 })) {
              if (snapshot.kind === 'model-text')
                await stream.writeSSE({ event: 'live', data: JSON.stringify({ step: snapshot.step, text: snapshot.text }) });
            }
          } catch {
            // A run that cannot be described now (a restarting server) is tried again below.
          }
          await stream.sleep(pollMs);
        }
      })();
      // The page was rendered just before: the first look only sets where the feed starts from.
      let cursor: number | null = null;
      let open: boolean | null = null;
      while (!aborted.signal.aborted) {
        const stillOpen = await run.workflow.describe().then(
          (description) => description.status.name === 'RUNNING',
          () => open,
        );
        const page: EventPage | null = stillOpen ? await run.workflow.query(eventsQuery, cursor ?? 0, 500).catch(() => null) : null;
        const moved = page !== null && cursor !== null && page.nextCursor !== cursor;
        if (moved || (open !== null && stillOpen !== open)) await stream.writeSSE({ event: 'changed', data: '' });
        if (page) cursor = page.nextCursor;
        open = stillOpen;
        await stream.sleep(pollMs);
      }
      await streamLive;
    }),
  );
}
