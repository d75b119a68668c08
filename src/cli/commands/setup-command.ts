import { Connection } from '@temporalio/client';
import { DEFAULT_NAMESPACE_RETENTION, describeNamespaceState, ensureNamespace, grpcCode, parseRetention } from '../../connection/ensure-namespace';
import { registerSearchAttributes } from '../../connection/register-search-attributes';
import { repairDuplicateAliases } from '../../connection/search-attribute-aliases';
import { retryUntil } from '../../connection/retry-until';
import { resolveTemporalTarget } from '../../connection/temporal-target';
import { formatDuration, isDuration, parseDuration } from '../../config/duration';
import { AgentConfigError } from '../../protocol/errors';
import { AGENT_SEARCH_ATTRIBUTES } from '../../protocol/search-attributes';

export interface SetupCommandOptions {
  json?: boolean;
  /** Retention of a namespace setup creates (default 30d). */
  retention?: string;
  /** Also set that retention on an existing namespace. */
  updateRetention?: boolean;
  /** How long to wait for a server that is still starting (default: not at all). */
  wait?: string;
}

/** gRPC codes of a server that is not up yet (UNAVAILABLE, DEADLINE_EXCEEDED). */
const STARTING = new Set([14, 4]);
const NOT_FOUND = 5;
/**
 * A namespace just registered (by this setup or a concurrent one) is unknown to the server's other
 * services for a few seconds: its database row exists, so `describeNamespace` finds it, while the
 * operator API still answers NOT_FOUND until the server's namespace cache refreshes.
 */
const NEW_NAMESPACE_PROPAGATION_MS = 60_000;

/**
 * `setup`: once per cluster namespace (idempotent). Creates the namespace if missing, with a
 * retention (how long closed runs stay readable), and registers the search attributes agent runs
 * use. Workers do not do this by default: several registering at once can make a Temporal server
 * create duplicate aliases.
 */
export async function setupCommand(options: SetupCommandOptions): Promise<void> {
  const { retentionMs, waitMs } = validateSetupOptions(options);
  const target = resolveTemporalTarget();
  const log = (line: string) => (options.json ? console.error(line) : console.log(line));
  const onRetry = (error: unknown, waited: number) =>
    log(`Waiting for Temporal at ${target.address} (${formatDuration(waited)} so far): ${error instanceof Error ? error.message : String(error)}`);
  // Short attempts while waiting, so a server that comes up is found soon after.
  const connectOptions =
    waitMs > 0 ? { ...target.connectionOptions, connectTimeout: Math.max(500, Math.min(waitMs / 4, 3_000)) } : target.connectionOptions;
  const connection = await retryUntil(() => Connection.connect(connectOptions), { withinMs: waitMs, retryable: () => true, onRetry }).catch(
    (error: unknown) => {
      throw new Error(`No Temporal server answered at ${target.address}${waitMs > 0 ? ` within ${formatDuration(waitMs)}` : ''} (TEMPORAL_ADDRESS)`, {
        cause: error,
      });
    },
  );
  try {
    const namespace = await retryUntil(
      () => ensureNamespace(connection, target.namespace, { retentionMs, updateRetention: options.updateRetention }),
      {
        withinMs: waitMs,
        retryable: (error) => STARTING.has(grpcCode(error) ?? -1),
        onRetry,
      },
    );
    log(describeNamespaceState(target.namespace, namespace, retentionMs));
    // Not only when this call created it: a concurrent setup may have, a moment ago (two setups
    // at once on a fresh namespace failed with NOT_FOUND in 5 of 5 trials before this). Their
    // registrations may also race: the loser's update fails UNAVAILABLE (retried here), or, on a
    // server before 1.31, both succeed with one attribute on two fields; the repair undoes that
    // (also on namespaces such a server left) while no run exists.
    const untilKnown = {
      withinMs: Math.max(waitMs, NEW_NAMESPACE_PROPAGATION_MS),
      retryable: (error: unknown) => grpcCode(error) === NOT_FOUND || STARTING.has(grpcCode(error) ?? -1),
    };
    const added = await retryUntil(() => registerSearchAttributes(connection, target.namespace), untilKnown);
    const repaired = await retryUntil(() => repairDuplicateAliases(connection, target.namespace), untilKnown);
    for (const { alias, fields } of repaired)
      log(`Search attribute ${alias} was on ${fields.join(' and ')} (two registrations at once); kept ${fields[0]}.`);
    const all = AGENT_SEARCH_ATTRIBUTES.map((attribute) => attribute.name);
    if (options.json) {
      console.log(
        JSON.stringify({ address: target.address, namespace: target.namespace, ...namespace, added, repairedAliases: repaired, present: all }),
      );
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

/** @throws AgentConfigError naming each invalid option, before connecting to anything. */
function validateSetupOptions(options: SetupCommandOptions): { retentionMs: number; waitMs: number } {
  const problems: string[] = [];
  const retention = parseRetention(options.retention ?? DEFAULT_NAMESPACE_RETENTION);
  if ('problem' in retention) problems.push(`--retention: ${retention.problem}`);
  if (options.wait !== undefined && !isDuration(options.wait)) problems.push(`--wait: '${options.wait}' is not a duration such as 30s or 3m`);
  if (problems.length > 0) throw new AgentConfigError(`Invalid setup options:\n  ${problems.join('\n  ')}`, problems);
  return { retentionMs: 'ms' in retention ? retention.ms : 0, waitMs: options.wait ? parseDuration(options.wait) : 0 };
}
