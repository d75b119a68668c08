// The named agents the A2A server exposes, as the task queue's workers offer them (asked through a probe, the answer kept a minute).
import { isExposedAt } from '../protocol/agent-offers';
import type { AgentClient } from '../client/agent-client';
import { WORKER_ANSWER_CACHE_MS } from '../client/worker-answers';
import { OffersReader } from '../client/offers-reader';
import type { AgentOffer } from '../protocol/agent-offers';
import { A2aHttpFailure, JsonRpcCode } from './a2a-failures';

/**
 * Finds an exposed agent's offer (name, version, tools). Only the agents the server's options list
 * are found; the workers are asked what they offer once a minute (again at once for a name missing
 * from the kept answer, so a definition deployed a moment ago is found). Many calls at once ask once.
 */
export class A2aAgentDirectory {
  private readonly exposed: ReadonlySet<string>;
  private readonly reader: OffersReader;

  constructor(
    private readonly agents: AgentClient,
    exposed: readonly string[],
  ) {
    this.exposed = new Set(exposed);
    // The gateway's MCP door reads the same offers: one ask serves both.
    this.reader = OffersReader.of(agents);
  }

  /** What the workers offer (kept a minute unless `fresh`), or null when none answered (the probe waits 30 s for one). */
  private offers(fresh: boolean): Promise<AgentOffer[] | null> {
    return this.reader.read({ maxAgeMs: WORKER_ANSWER_CACHE_MS, fresh }).catch(() => null);
  }

  /**
   * The offer of exposed agent `name`.
   * @throws A2aHttpFailure 404 `AgentNotFound` for an agent not exposed or not offered; 503 `WorkersUnavailable` when no worker answered.
   */
  async offer(name: string): Promise<AgentOffer> {
    if (!this.exposed.has(name)) throw notServed(name, [...this.exposed]);
    let offers = await this.offers(false);
    if (offers && !offers.some((offer) => offer.name === name)) offers = await this.offers(true);
    if (!offers)
      throw new A2aHttpFailure(
        503,
        'WorkersUnavailable',
        `No worker on task queue '${this.agents.taskQueue}' answered which agents it offers: try again`,
        JsonRpcCode.internalError,
      );
    const offer = offers.find((candidate) => candidate.name === name);
    // The server lists it, but its config closes the A2A door (`expose` without `a2a`): not served either.
    if (!offer || !isExposedAt(offer, 'a2a')) throw notServed(name, [...this.exposed]);
    return offer;
  }
}

function notServed(name: string, exposed: string[]): A2aHttpFailure {
  return new A2aHttpFailure(
    404,
    'AgentNotFound',
    `No agent '${name}' is served over A2A here (served: ${exposed.join(', ') || 'none'})`,
    JsonRpcCode.methodNotFound,
  );
}
