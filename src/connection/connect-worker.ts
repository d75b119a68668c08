// The worker's connection to Temporal (the Rust core's), with an error in words instead of a tonic::transport::Error.
import { NativeConnection } from '@temporalio/worker';
import type { TemporalTarget } from './temporal-target';
import { unreachableAfter } from './temporal-unreachable';

/**
 * `NativeConnection.connect` for workers: Temporal's Rust core fails fast, but with a raw
 * `tonic::transport::Error`; this says the same in words.
 * @throws TemporalUnreachableError
 */
export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(target.connectionOptions);
  } catch (error) {
    throw unreachableAfter(target, error);
  }
}
