// The Temporal server's persistence requests by service and operation, read from its Prometheus endpoint, for the cluster bench's per-run figures.

/** Requests so far, keyed `service operation` (e.g. `matching CreateTasks`). */
export type PersistenceRequests = Map<string, number>;

/**
 * Reads the `persistence_requests` counters of the server listening on `endpoint` (host:port, the
 * PROMETHEUS_ENDPOINT of deploy/temporal/postgresql.yaml), summed over namespaces.
 */
export async function readPersistenceRequests(endpoint: string): Promise<PersistenceRequests> {
  const response = await fetch(`http://${endpoint}/metrics`);
  if (!response.ok) throw new Error(`GET http://${endpoint}/metrics answered ${response.status}`);
  const counts: PersistenceRequests = new Map();
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('persistence_requests{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    const service = /service_name="([^"]*)"/.exec(labels)?.[1] ?? '?';
    const operation = /operation="([^"]*)"/.exec(labels)?.[1] ?? '?';
    const key = `${service} ${operation}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

/** What each key grew by from `before` to `after` (keys that did not grow left out). */
export function requestsBetween(before: PersistenceRequests, after: PersistenceRequests): PersistenceRequests {
  const grown: PersistenceRequests = new Map();
  for (const [key, count] of after) {
    const growth = count - (before.get(key) ?? 0);
    if (growth > 0) grown.set(key, growth);
  }
  return grown;
}

/**
 * One line: requests per run in all, then the `top` operations per run, e.g.
 * `148.2 (history UpdateWorkflowExecution 68.9, ...)`.
 */
export function describePerRun(requests: PersistenceRequests, runs: number, top = 6): string {
  const total = [...requests.values()].reduce((sum, count) => sum + count, 0);
  const largest = [...requests].sort((a, b) => b[1] - a[1]).slice(0, top);
  return `${(total / runs).toFixed(1)} (${largest.map(([key, count]) => `${key} ${(count / runs).toFixed(1)}`).join(', ')})`;
}
