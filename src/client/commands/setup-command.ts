import { Connection } from '@temporalio/client';
import { registerSearchAttributes } from '../../connection/register-search-attributes';
import { resolveTemporalTarget } from '../../connection/temporal-target';
import { AGENT_SEARCH_ATTRIBUTES } from '../../shared/search-attributes';

/**
 * `setup`: registers the search attributes agent runs use on the namespace, once per cluster
 * (idempotent). Workers do not do this by default: several registering at once can make a Temporal
 * server create duplicate aliases.
 */
export async function setupCommand(options: { json?: boolean }): Promise<void> {
  const target = resolveTemporalTarget();
  const connection = await Connection.connect(target.connectionOptions);
  try {
    const added = await registerSearchAttributes(connection, target.namespace);
    const all = AGENT_SEARCH_ATTRIBUTES.map((attribute) => attribute.name);
    if (options.json) {
      console.log(JSON.stringify({ address: target.address, namespace: target.namespace, added, present: all }));
    } else {
      console.log(
        added.length > 0
          ? `Registered ${added.join(', ')} on namespace ${target.namespace} at ${target.address}.`
          : `Namespace ${target.namespace} at ${target.address} already has ${all.join(', ')}.`,
      );
    }
  } finally {
    await connection.close();
  }
}
