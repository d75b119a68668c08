import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

/**
 * Where the CLI, the worker and the tests find Temporal: the standard `TEMPORAL_ADDRESS`,
 * `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, TLS variables and profiles (through the SDK's envconfig
 * loader), or else the embedded dev server on loopback.
 */
export interface TemporalTarget {
  address: string;
  namespace: string;
  /** Connection options for both `Connection.connect` and `NativeConnection.connect`. */
  connectionOptions: NativeConnectionOptions & { address: string };
  /** True when the user pointed us at a server (we must not start one). */
  external: boolean;
  /**
   * Where `address` came from, for messages: `TEMPORAL_ADDRESS`, a profile of the Temporal config
   * file, or `default` (the local dev server's address).
   */
  addressSource?: string;
  /** Base URL of the Web UI, when known. */
  uiUrl: string | null;
}

export const LOCAL_DEV_ADDRESS = '127.0.0.1:7233';
export const LOCAL_DEV_UI_URL = 'http://127.0.0.1:8233';

/**
 * Reads where Temporal is from the environment: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
 * `TEMPORAL_API_KEY`, the TLS variables and `TEMPORAL_PROFILE` / config files, through the SDK's
 * envconfig loader; without `TEMPORAL_ADDRESS` (or a profile's address), the local dev server at
 * 127.0.0.1:7233. `TEMPORAL_UI_URL` sets the Web UI link. It connects to nothing.
 * @example
 * import { NativeConnection } from '@temporalio/worker';
 * import { AgentClient, resolveTemporalTarget } from 'durable-agents';
 *
 * const target = resolveTemporalTarget(); // or resolveTemporalTarget({ TEMPORAL_ADDRESS: 'temporal.internal:7233' })
 * const agents = await AgentClient.connect(target);
 * const connection = await NativeConnection.connect(target.connectionOptions); // for a worker
 */
export function resolveTemporalTarget(environment: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const external = Boolean(environment.TEMPORAL_ADDRESS);
  const loaded = loadClientConnectConfig({ overrideEnvVars: onlyStrings(environment) });
  const address = loaded.connectionOptions.address ?? LOCAL_DEV_ADDRESS;
  const addressSource = environment.TEMPORAL_ADDRESS
    ? 'TEMPORAL_ADDRESS'
    : loaded.connectionOptions.address
      ? `the address of profile '${environment.TEMPORAL_PROFILE ?? 'default'}' in the Temporal config file`
      : 'default';
  return {
    address,
    namespace: loaded.namespace ?? 'default',
    connectionOptions: { ...loaded.connectionOptions, address },
    external,
    addressSource,
    uiUrl: environment.TEMPORAL_UI_URL || (external || loaded.connectionOptions.address ? derivedUiUrl(address) : LOCAL_DEV_UI_URL),
  };
}

/**
 * The Web UI of a server named without `TEMPORAL_UI_URL`, where it can be known: a dev server on
 * this machine serves it on its port + 1000 (`temporal server start-dev`'s default), Temporal Cloud
 * at cloud.temporal.io. Anything else: null (`WEB_UI_HINT` says how to set it).
 */
function derivedUiUrl(address: string): string | null {
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(address.trim());
  if (!match) return null;
  const host = (match[1] ?? match[2] ?? '').toLowerCase();
  const port = Number(match[3] ?? 7233);
  if (host.endsWith('.tmprl.cloud')) return 'https://cloud.temporal.io';
  const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
  return loopback && port + 1000 <= 65_535 ? `http://${host.includes(':') ? `[${host}]` : host}:${port + 1000}` : null;
}

/** What to tell someone whose runs have no Web UI link: how to give one. */
export const WEB_UI_HINT = 'set TEMPORAL_UI_URL to your Temporal Web UI, for example http://temporal-ui:8080, to get a link';

/** Link to a run in the Temporal Web UI. */
export function webUiRunUrl(uiUrl: string, namespace: string, workflowId: string, runId?: string): string {
  const base = `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}

function onlyStrings(environment: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(environment)) if (typeof value === 'string') result[key] = value;
  return result;
}
