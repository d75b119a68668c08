// The client's connection to Temporal: a closed port or an unknown host fails at once, with an error that says what to do.
import { Connection } from '@temporalio/client';
import type { TemporalTarget } from './temporal-target';
import { connectTimeoutMs, tcpProbe, unreachable, unreachableAfter, usesProxy } from './temporal-unreachable';

/**
 * `Connection.connect` for clients. A closed port or an unknown host is found by a plain TCP
 * connect first, so it fails at once instead of after the gRPC connect timeout (10 s).
 * @throws TemporalUnreachableError
 */
export async function connectClient(target: TemporalTarget): Promise<Connection> {
  const timeoutMs = connectTimeoutMs(target);
  if (!usesProxy(target)) {
    const failure = await tcpProbe(target.address, timeoutMs);
    if (failure) throw unreachable(target, failure.reason, failure.detail);
  }
  try {
    return await Connection.connect(target.connectionOptions);
  } catch (error) {
    throw unreachableAfter(target, error);
  }
}
