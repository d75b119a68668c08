// The gateway's feeds with its stream limits: one registry whose stats say both what feeds cost and how many streams are open.
import type { Client } from '@temporalio/client';
import { FeedRegistry } from './feed-registry';
import type { FeedRequests } from './run-feed';
import { StreamLimiter, type GatewayStreamLimits, type StreamLimitStats } from './stream-limits';

/**
 * A gateway's shared feeds (`FeedRegistry`) and the limiter of its open streams
 * (`GatewayOptions.streamLimits`): `stats()` counts both.
 * @example
 * const gateway = await startGateway({ agents, port: 8787, streamLimits: { maxStreams: 2_000, maxStreamsPerPrincipal: 20 } });
 * const { streams, limits } = gateway.feeds.stats();
 * console.log(`${streams} feed streams, ${limits.open} of ${limits.maxStreams} streams open; refused: ${limits.refused.maxStreams}`);
 */
export class GatewayFeeds extends FeedRegistry {
  /** Counts the gateway's open streams against its limits. */
  readonly limiter: StreamLimiter;

  constructor(client: Client, namespace: string, limits: GatewayStreamLimits = {}) {
    super(client, namespace);
    this.limiter = new StreamLimiter(limits);
  }

  /** The feeds' counts (`FeedRegistry.stats`) and the stream limits' (`limits`). */
  override stats(): { feeds: number; streams: number; requests: FeedRequests; limits: StreamLimitStats } {
    return { ...super.stats(), limits: this.limiter.stats() };
  }
}
