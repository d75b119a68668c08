// The shared reader of the workers' offers: its TTL, one ask in flight, failures not kept, one reader per client.
import { describe, expect, it } from '@jest/globals';
import { Client } from '@temporalio/client';
import { AgentClient } from '../../src/client/agent-client';
import { OFFERS_TTL_MS, OffersReader } from '../../src/client/offers-reader';
import type { AgentOffer } from '../../src/protocol/agent-offers';

const offer = (name: string): AgentOffer => ({ name, version: 'v1', label: null, model: 'scripted:x', tools: [], handoffs: [], overridable: [] });

/** A reader over an ask that answers when the test says so, and counts the asks. */
function readerWithClock() {
  let clock = 1_000;
  const asks: Array<{ resolve: (offers: AgentOffer[]) => void; reject: (error: Error) => void }> = [];
  const reader = new OffersReader(
    () => new Promise<AgentOffer[]>((resolve, reject) => asks.push({ resolve, reject })),
    () => clock,
  );
  return { reader, asks, advance: (ms: number) => (clock += ms) };
}

describe('OffersReader', () => {
  it('shares one ask among the readers that come while it is in flight', async () => {
    const { reader, asks } = readerWithClock();
    const reads = [reader.read(), reader.read(), reader.read({ fresh: true })];
    expect(asks).toHaveLength(1);
    asks[0]!.resolve([offer('support')]);
    const answers = await Promise.all(reads);
    expect(answers.map((offers) => offers.map((each) => each.name))).toEqual([['support'], ['support'], ['support']]);
  });

  it('reuses an answer younger than the TTL and asks again after it', async () => {
    const { reader, asks, advance } = readerWithClock();
    const first = reader.read();
    asks[0]!.resolve([offer('support')]);
    await first;
    advance(OFFERS_TTL_MS - 1);
    expect((await reader.read()).map((each) => each.name)).toEqual(['support']);
    expect(asks).toHaveLength(1);
    advance(1);
    const second = reader.read();
    expect(asks).toHaveLength(2);
    asks[1]!.resolve([offer('billing')]);
    expect((await second).map((each) => each.name)).toEqual(['billing']);
  });

  it('lets each caller say how old an answer it takes, and asks at once when fresh', async () => {
    const { reader, asks, advance } = readerWithClock();
    const first = reader.read();
    asks[0]!.resolve([offer('support')]);
    await first;
    advance(30_000);
    expect((await reader.read({ maxAgeMs: 60_000 })).map((each) => each.name)).toEqual(['support']);
    expect(asks).toHaveLength(1);
    const fresh = reader.read({ maxAgeMs: 60_000, fresh: true });
    expect(asks).toHaveLength(2);
    asks[1]!.resolve([offer('support'), offer('billing')]);
    expect(await fresh).toHaveLength(2);
  });

  it('hands a failed ask to every caller that shared it and does not keep it', async () => {
    const { reader, asks } = readerWithClock();
    const reads = [reader.read(), reader.read()];
    asks[0]!.reject(new Error('no worker answered'));
    for (const read of reads) await expect(read).rejects.toThrow('no worker answered');
    const again = reader.read();
    expect(asks).toHaveLength(2);
    asks[1]!.resolve([offer('support')]);
    expect(await again).toHaveLength(1);
  });

  it('gives the doors of one client the same reader, and another client its own', () => {
    const temporal = new Client();
    const agents = new AgentClient(temporal, { taskQueue: 'offers-a' });
    const other = new AgentClient(temporal, { taskQueue: 'offers-b' });
    expect(OffersReader.of(agents)).toBe(OffersReader.of(agents));
    expect(OffersReader.of(other)).not.toBe(OffersReader.of(agents));
  });
});
