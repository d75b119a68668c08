// How many streams a gateway process holds open, in all and per principal: refused beyond the limits before any Temporal call.
import { AgentConfigError } from '../../protocol/errors';
import { GatewayError, GatewayErrorCode } from '../gateway-errors';

/**
 * The most streams (SSE answers: UI message streams, AG-UI runs) one gateway process holds open.
 * Each limit is per process: behind a load balancer, N processes hold up to N times as many.
 */
export interface GatewayStreamLimits {
  /** In all (`serve --max-streams`); beyond it a stream request answers 503 `StreamLimitReached`. Default: no limit. */
  maxStreams?: number;
  /** Per principal (a key's or token's; `serve --max-streams-per-principal`); beyond it 429 `TooManyStreams`. Default: no limit. */
  maxStreamsPerPrincipal?: number;
}

/** What `GatewayFeeds.stats().limits` says: the limits, the streams they count, and how many requests they refused. */
export interface StreamLimitStats {
  maxStreams: number | null;
  maxStreamsPerPrincipal: number | null;
  /** Streams open now (counted from the request, so a stream whose feed has not started yet is one). */
  open: number;
  /** Principals with a stream open now. */
  principals: number;
  refused: { maxStreams: number; maxStreamsPerPrincipal: number };
}

/** Counts open streams and refuses one over a limit; `acquire` before a stream's first Temporal call, its release when it ends. */
export class StreamLimiter {
  private readonly maxStreams: number | null;
  private readonly maxPerPrincipal: number | null;
  private readonly byPrincipal = new Map<string, number>();
  private open = 0;
  private readonly refused = { maxStreams: 0, maxStreamsPerPrincipal: 0 };

  /** @throws AgentConfigError naming the limit when one is not a whole number from 1. */
  constructor(limits: GatewayStreamLimits = {}) {
    this.maxStreams = checkedLimit('maxStreams', limits.maxStreams);
    this.maxPerPrincipal = checkedLimit('maxStreamsPerPrincipal', limits.maxStreamsPerPrincipal);
  }

  /**
   * Counts a stream of `principal`; returns its release (call it once, when the stream ends; later calls do nothing).
   * @throws GatewayError 429 `TooManyStreams` (the principal's limit) or 503 `StreamLimitReached` (the process's).
   */
  acquire(principal: string): () => void {
    const held = this.byPrincipal.get(principal) ?? 0;
    if (this.maxPerPrincipal !== null && held >= this.maxPerPrincipal) {
      this.refused.maxStreamsPerPrincipal++;
      throw new GatewayError(
        429,
        GatewayErrorCode.tooManyStreams,
        `'${principal}' has ${held} streams open on this gateway process, its limit (maxStreamsPerPrincipal ${this.maxPerPrincipal}): close one first`,
        { limit: 'maxStreamsPerPrincipal', max: this.maxPerPrincipal },
      );
    }
    if (this.maxStreams !== null && this.open >= this.maxStreams) {
      this.refused.maxStreams++;
      throw new GatewayError(
        503,
        GatewayErrorCode.streamLimitReached,
        `This gateway process has ${this.open} streams open, its limit (maxStreams ${this.maxStreams}): try again later or another process`,
        { limit: 'maxStreams', max: this.maxStreams },
      );
    }
    this.open++;
    this.byPrincipal.set(principal, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.byPrincipal.get(principal) ?? 1) - 1;
      if (left > 0) this.byPrincipal.set(principal, left);
      else this.byPrincipal.delete(principal);
    };
  }

  stats(): StreamLimitStats {
    return {
      maxStreams: this.maxStreams,
      maxStreamsPerPrincipal: this.maxPerPrincipal,
      open: this.open,
      principals: this.byPrincipal.size,
      refused: { ...this.refused },
    };
  }
}

function checkedLimit(name: string, value: number | undefined): number | null {
  if (value === undefined) return null;
  if (Number.isInteger(value) && value >= 1) return value;
  const problem = `${name}: the most open streams is a whole number from 1, not ${JSON.stringify(value)}`;
  throw new AgentConfigError(`The gateway's stream limits are invalid: ${problem}`, [problem]);
}

/**
 * `stream`, releasing its slot once: when it ends, fails, or its client goes away (cancel).
 * Reads it on demand (pull), so it buffers nothing more than the stream itself does.
 */
export function releasingStream(stream: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (!next.done) return controller.enqueue(next.value);
        release();
        controller.close();
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
}
