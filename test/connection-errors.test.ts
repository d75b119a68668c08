// A wrong Temporal address fails at once, naming the address and the setting it came from (the library client, the worker and the CLI).
import { describe, expect, it } from '@jest/globals';
import { AgentClient } from '../src/client/agent-client';
import { connectWorker } from '../src/connection/connect-worker';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { TemporalUnreachableError } from '../src/connection/temporal-unreachable';
import { freePort } from '../src/devserver/dev-server';
import { runCli } from './support/cli-process';

/** A loopback port nothing listens on (taken and released). */
async function closedAddress(): Promise<string> {
  return `127.0.0.1:${await freePort()}`;
}

/** The rejection of `promise`, and how long it took. */
async function refusal(promise: Promise<unknown>): Promise<{ error: TemporalUnreachableError; ms: number }> {
  const started = Date.now();
  const error = await promise.then(
    () => {
      throw new Error('connected, but no server should answer there');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TemporalUnreachableError);
  return { error: error as TemporalUnreachableError, ms: Date.now() - started };
}

describe('connecting to a wrong Temporal address', () => {
  it('AgentClient.connect fails at once on a closed port, naming the address and TEMPORAL_ADDRESS', async () => {
    const address = await closedAddress();
    const { error, ms } = await refusal(AgentClient.connect(resolveTemporalTarget({ TEMPORAL_ADDRESS: address })));
    // grpc-js alone waits for its 10 s connect deadline; a refused port answers in milliseconds
    // (5 s leaves room for a loaded machine and still tells the two apart).
    expect(ms).toBeLessThan(5_000);
    expect({ code: error.code, reason: error.reason, address: error.address }).toEqual({ code: 'TemporalUnreachable', reason: 'refused', address });
    expect(error.message).toBe(
      `No Temporal server answers at ${address} (TEMPORAL_ADDRESS): connection refused (nothing listens on that port). ` +
        'Check TEMPORAL_ADDRESS (host:port of the frontend, 7233 by default) and that the server runs, or unset it to use a local dev server.',
    );
  });

  it('says how to start a local server when the address is the default one', async () => {
    const address = await closedAddress();
    const local = resolveTemporalTarget({});
    expect(local.addressSource).toBe('default');
    const { error } = await refusal(AgentClient.connect({ ...local, address, connectionOptions: { ...local.connectionOptions, address } }));
    expect(error.message).toContain(`at ${address} (the default: TEMPORAL_ADDRESS is not set): connection refused`);
    expect(error.message).toContain('Start a local server with `npx durable-agents dev`');
  });

  it('names a host that does not resolve', async () => {
    const { error } = await refusal(AgentClient.connect(resolveTemporalTarget({ TEMPORAL_ADDRESS: 'temporal.invalid:7233' })));
    expect(error.reason).toBe('unknown-host');
    expect(error.message).toContain('No Temporal server answers at temporal.invalid:7233 (TEMPORAL_ADDRESS): the host name does not resolve.');
  });

  it("a worker's connection says the same in words, not as a tonic::transport::Error", async () => {
    const address = await closedAddress();
    const { error } = await refusal(connectWorker(resolveTemporalTarget({ TEMPORAL_ADDRESS: address })));
    expect(error.reason).toBe('refused');
    expect(error.message).toContain(`No Temporal server answers at ${address} (TEMPORAL_ADDRESS): connection refused`);
    expect(error.detail).toContain('tonic::transport::Error');
  });

  it('the CLI worker and client commands print that message and exit 1', async () => {
    const address = await closedAddress();
    for (const args of [
      ['worker', '--no-demo-tools'],
      ['status', 'some-run'],
    ]) {
      const result = await runCli(args, { TEMPORAL_ADDRESS: address });
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(result.stderr).toContain(
        `error: No Temporal server answers at ${address} (TEMPORAL_ADDRESS): connection refused (nothing listens on that port).`,
      );
      expect(result.stderr).not.toContain('tonic');
    }
  });
});
