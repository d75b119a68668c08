// Turn-taking among tenants (fairness keys), pure: who goes next in the provider limiter's and the concurrency slots' queues.

/** What a queued request says of its place: Temporal's priority key, its tenant and the tenant's weight. */
export interface TurnTaker {
  priorityKey: number;
  fairnessKey: string;
  /** The tenant's share: a weight-2 tenant gets about twice the turns of a weight-1 one (default 1). */
  fairnessWeight?: number;
}

/** The turns kept across grants (part of the limiter's and the slots workflow's state). */
export interface TenantTurns {
  /** The turn each tenant was last served in: the tenant served longest ago goes next. */
  lastServed: Record<string, number>;
  serveCount: number;
  /** Grants a heavier tenant took in its current turn (absent while every tenant weighs the same). */
  turnCredit?: Record<string, number>;
}

/**
 * The next request to serve: the lowest priority key first; among those, the tenant served
 * longest ago (a tenant never served before goes first), and that tenant's oldest request.
 */
export function nextInTurn<Request extends TurnTaker>(queue: readonly Request[], turns: TenantTurns): Request | null {
  let best: Request | null = null;
  let bestTurn = Infinity;
  for (const request of queue) {
    const turn = turns.lastServed[request.fairnessKey] ?? -1;
    if (!best || request.priorityKey < best.priorityKey || (request.priorityKey === best.priorityKey && turn < bestTurn)) {
      best = request;
      bestTurn = turn;
    }
  }
  return best;
}

/**
 * Records that `served` was granted. A tenant's turn lasts as many grants as its weight over the
 * lightest weight queued at its priority (weights 2 and 1: two grants, then one), so while both
 * have requests queued the heavier gets its share; fractions carry over to the next turn. With
 * equal weights every grant ends the turn, and no credit is kept (the order is plain turns).
 */
export function recordTurn(turns: TenantTurns, served: TurnTaker, queued: readonly TurnTaker[]): void {
  const tenant = served.fairnessKey;
  const weightOf = (request: TurnTaker) => request.fairnessWeight ?? 1;
  const samePriority = queued.filter((request) => request.priorityKey === served.priorityKey);
  const lightest = Math.min(weightOf(served), ...samePriority.map(weightOf));
  const grantsPerTurn = weightOf(served) / lightest;
  if (grantsPerTurn <= 1) {
    if (turns.turnCredit) delete turns.turnCredit[tenant];
    turns.lastServed[tenant] = ++turns.serveCount;
    return;
  }
  const credit = (turns.turnCredit?.[tenant] ?? 0) + 1;
  turns.turnCredit ??= {};
  if (credit < grantsPerTurn) {
    // The turn goes on: the tenant keeps its place (served longest ago) for its next grant.
    turns.turnCredit[tenant] = credit;
    return;
  }
  turns.turnCredit[tenant] = credit - grantsPerTurn;
  turns.lastServed[tenant] = ++turns.serveCount;
}

/** Forgets the turns of tenants with nothing queued: turns only order tenants relative to each other. */
export function forgetIdleTenants(turns: TenantTurns, queued: readonly TurnTaker[]): void {
  const queuedTenants = new Set(queued.map((request) => request.fairnessKey));
  for (const tenant of Object.keys(turns.lastServed)) if (!queuedTenants.has(tenant)) delete turns.lastServed[tenant];
  for (const tenant of Object.keys(turns.turnCredit ?? {})) if (!queuedTenants.has(tenant)) delete turns.turnCredit![tenant];
}
