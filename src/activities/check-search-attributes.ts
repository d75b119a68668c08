// The local activity runAgent runs before it starts an agent child: does the namespace have the run's search attributes?
import type { Client } from '@temporalio/client';
import type { SearchAttributesCheck } from '../protocol/activity-types';

export interface SearchAttributesDependencies {
  /** A client on the worker's namespace (the one model steps read conversations with). */
  searchAttributesClient: Client;
}

/** How long a namespace found to have the attributes is not asked again (they are rarely removed). */
const KNOWN_GOOD_MS = 5 * 60_000;

/**
 * Asks the namespace's visibility store about `names` with a query that uses them all: a
 * namespace without one answers "invalid query: … 'AgentName' is not a valid search attribute".
 * A plain query (not the operator API's list) so that a worker's own credentials suffice, on
 * Temporal Cloud too. Positive answers are kept for five minutes per worker process; a namespace
 * that lacked them is asked again, so `durable-agents setup` takes effect at once. Any other
 * error (the server unreachable, a refused query) answers "could not tell": the start goes ahead.
 */
export function createCheckSearchAttributes(dependencies: SearchAttributesDependencies) {
  const knownGood = new Map<string, number>();
  return async function checkSearchAttributes(names: string[]): Promise<SearchAttributesCheck> {
    const client = dependencies.searchAttributesClient;
    const namespace = client.options.namespace;
    const key = `${namespace}\n${[...names].sort().join(',')}`;
    if (Date.now() - (knownGood.get(key) ?? -Infinity) < KNOWN_GOOD_MS) return { missing: null };
    try {
      await client.workflowService.countWorkflowExecutions({ namespace, query: names.map((name) => `${name} = ''`).join(' AND ') });
      knownGood.set(key, Date.now());
      return { missing: null };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const named = /search attribute/i.test(message) && names.some((name) => message.includes(name));
      return { missing: named ? message : null };
    }
  };
}
