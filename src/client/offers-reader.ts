// The agents a task queue's workers offer, read through one probe at a time and kept: the reader the MCP catalogue and the A2A directory share.
import type { AgentClient } from './agent-client';
import type { AgentOffer } from '../protocol/agent-offers';

/** How old an answer a reader hands out unless its caller says otherwise (each ask starts a small probe workflow). */
export const OFFERS_TTL_MS = 10_000;

/**
 * What the workers offer (`AgentClient.listAgents`), kept so that a burst of readers asks once:
 * calls while an ask is in flight share it, and an answer is reused while it is younger than the
 * caller's `maxAgeMs`. A failed ask is not kept (the next call asks again) and reaches every
 * caller that shared it. `OffersReader.of(agents)` gives every door of one process the same reader.
 */
export class OffersReader {
  private static readonly shared = new WeakMap<AgentClient, OffersReader>();
  private known: { offers: AgentOffer[]; at: number } | null = null;
  private asking: Promise<AgentOffer[]> | null = null;

  constructor(
    private readonly ask: () => Promise<AgentOffer[]>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The one reader of `agents`' task queue in this process (the MCP door and the A2A server of a gateway share it). */
  static of(agents: AgentClient): OffersReader {
    let reader = OffersReader.shared.get(agents);
    if (!reader) {
      reader = new OffersReader(() => agents.listAgents());
      OffersReader.shared.set(agents, reader);
    }
    return reader;
  }

  /**
   * The offers: the kept answer when younger than `maxAgeMs` (default `OFFERS_TTL_MS`) and not
   * `fresh`, else the answer of an ask (one already in flight, or a new one).
   * @throws what `listAgents` throws (AgentRuntimeError `WorkersUnavailable` when no worker answers).
   */
  read(options: { maxAgeMs?: number; fresh?: boolean } = {}): Promise<AgentOffer[]> {
    const maxAgeMs = options.maxAgeMs ?? OFFERS_TTL_MS;
    if (!options.fresh && this.known && this.now() - this.known.at < maxAgeMs) return Promise.resolve(this.known.offers);
    this.asking ??= this.ask()
      .then((offers) => {
        this.known = { offers, at: this.now() };
        return offers;
      })
      .finally(() => (this.asking = null));
    return this.asking;
  }
}
