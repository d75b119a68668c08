import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from 'pg';
import { freePort } from '../src/devserver/dev-server';
import { FolderMemoryStore } from '../src/memory/folder-memory-store';
import { forgetResource } from '../src/memory/forget-resource';
import { MEMORY_LIMITS, type MemoryStore } from '../src/memory/memory-store';
import { PostgresMemoryStore } from '../src/memory/postgres-memory-store';
import { ErrorCode } from '../src/protocol/errors';
import { startPostgres, type Postgres } from './support/postgres';

/**
 * The memory store contract, run against both backends: the folder store (the embedded default)
 * and the PostgreSQL store on a private, real PostgreSQL. Each test gets a fresh store (its own
 * folder, its own table) so the tests do not see each other's entries.
 */

let folder: string;
let postgres: Postgres;
const opened: MemoryStore[] = [];

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'memory-store-'));
  postgres = await startPostgres(await freePort());
}, 90_000);

afterAll(async () => {
  for (const store of opened) await store.close();
  await postgres?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** A second store on the same place stands in for another worker. */
interface Backend {
  fresh(): { store: MemoryStore; another(): MemoryStore };
}

const track = <Store extends MemoryStore>(store: Store): Store => {
  opened.push(store);
  return store;
};

const backends: Array<[string, Backend]> = [
  [
    'folder',
    {
      fresh() {
        const place = path.join(folder, randomUUID());
        return { store: track(new FolderMemoryStore(place)), another: () => track(new FolderMemoryStore(place)) };
      },
    },
  ],
  [
    'PostgreSQL',
    {
      fresh() {
        const table = `memory_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
        const make = () => track(new PostgresMemoryStore({ connectionString: postgres.url, table, poolSize: 2 }));
        return { store: make(), another: make };
      },
    },
  ],
];

async function failureCode(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
    return 'no failure';
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
}

describe.each(backends)('the %s memory store', (_name, backend) => {
  it('stores a fact with its resource, tags, metadata, time and source, and recalls it', async () => {
    const { store } = backend.fresh();
    await store.open();
    const before = Date.now();
    const { entry, created } = await store.remember({
      resource: 'user:42',
      text: '  Prefers answers in French.  ',
      tags: ['language', 'language', 'style'],
      metadata: { confidence: 0.9 },
      source: { workflowId: 'support-1', callId: 'call-1' },
    });
    expect(created).toBe(true);
    expect(entry).toEqual({
      id: expect.stringMatching(/^mem-[0-9a-f]{32}$/),
      resource: 'user:42',
      text: 'Prefers answers in French.',
      tags: ['language', 'style'],
      metadata: { confidence: 0.9 },
      createdAt: expect.any(String),
      source: { workflowId: 'support-1', callId: 'call-1' },
    });
    expect(Date.parse(entry.createdAt)).toBeGreaterThanOrEqual(before - 1_000);
    expect(await store.recall({ resource: 'user:42', text: 'french' })).toEqual([entry]);
  });

  it('stores a call with the same idempotency key once, on any worker', async () => {
    const { store, another } = backend.fresh();
    const first = await store.remember({ resource: 'user:1', text: 'Has a dog named Rex.', idempotencyKey: 'run-1/step-1.tool-1.remember' });
    const retried = await another().remember({ resource: 'user:1', text: 'Has a dog named Rex.', idempotencyKey: 'run-1/step-1.tool-1.remember' });
    expect(retried).toEqual({ entry: first.entry, created: false });
    // The same key for another resource is another entry; without a key, every call stores.
    const otherResource = await store.remember({ resource: 'user:2', text: 'Has a dog named Rex.', idempotencyKey: 'run-1/step-1.tool-1.remember' });
    expect(otherResource.entry.id).not.toBe(first.entry.id);
    await store.remember({ resource: 'user:1', text: 'Likes hiking.' });
    await store.remember({ resource: 'user:1', text: 'Likes hiking.' });
    expect((await store.recall({ resource: 'user:1' })).map((entry) => entry.text)).toEqual([
      'Likes hiking.',
      'Likes hiking.',
      'Has a dog named Rex.',
    ]);
  });

  it('recalls entries with any of the words, those with more of them first, then the newest; an empty query lists the newest', async () => {
    const { store } = backend.fresh();
    const resource = 'team:support';
    const remember = async (text: string, tags: string[] = []) => (await store.remember({ resource, text, tags })).entry.id;
    const coffee = await remember('Drinks coffee every morning.');
    const tea = await remember('Prefers green tea in the afternoon.');
    const both = await remember('Prefers coffee to tea.');
    const tagged = await remember('Works from Lisbon.', ['coffee']);
    await remember('Has two children.');
    const found = await store.recall({ resource, text: 'coffee tea' });
    expect(found.map((entry) => entry.id)).toEqual([both, tagged, tea, coffee]);
    // Word forms: "prefer" finds "Prefers".
    expect((await store.recall({ resource, text: 'prefer' })).map((entry) => entry.id)).toEqual([both, tea]);
    expect(await store.recall({ resource, text: 'bicycle' })).toEqual([]);
    expect((await store.recall({ resource, limit: 2 })).map((entry) => entry.text)).toEqual(['Has two children.', 'Works from Lisbon.']);
    expect((await store.recall({ resource, text: 'coffee', limit: 1 })).map((entry) => entry.id)).toHaveLength(1);
  });

  it("keeps resources apart: one resource's recall, forget and forgetResource never touch another's entries", async () => {
    const { store } = backend.fresh();
    await store.remember({ resource: 'user:a', text: 'Lives in Berlin.' });
    await store.remember({ resource: 'user:a', text: 'Speaks German.' });
    const kept = (await store.remember({ resource: 'user:b', text: 'Lives in Berlin too.' })).entry;
    expect((await store.recall({ resource: 'user:a', text: 'berlin' })).map((entry) => entry.resource)).toEqual(['user:a']);
    expect(await store.forget({ resource: 'user:a', id: kept.id })).toEqual([]);
    expect(await forgetResource('user:a', { memory: store })).toEqual({
      resource: 'user:a',
      memoryEntries: 2,
      threads: null,
      threadArtifacts: null,
      workflowExecutions: null,
      complete: true,
      pending: [],
    });
    expect(await store.recall({ resource: 'user:a' })).toEqual([]);
    expect(await forgetResource('user:a', { memory: store })).toEqual({
      resource: 'user:a',
      memoryEntries: 0,
      threads: null,
      threadArtifacts: null,
      workflowExecutions: null,
      complete: true,
      pending: [],
    });
    expect(await store.recall({ resource: 'user:b' })).toEqual([kept]);
  });

  it('forgets one entry by id, or every entry containing a text (ignoring case), and reports what it deleted', async () => {
    const { store, another } = backend.fresh();
    const resource = 'user:7';
    const allergy = (await store.remember({ resource, text: 'Allergic to peanuts.' })).entry;
    const peanuts = (await store.remember({ resource, text: 'Loves PEANUT butter? No: avoid peanut butter.' })).entry;
    const city = (await store.remember({ resource, text: 'Lives in Oslo.' })).entry;
    expect(await another().forget({ resource, id: city.id })).toEqual([city]);
    expect(await store.forget({ resource, id: city.id })).toEqual([]);
    expect(await store.forget({ resource, id: 'not-an-id' })).toEqual([]);
    const deleted = await store.forget({ resource, matching: 'peanut' });
    expect(deleted.map((entry) => entry.id).sort()).toEqual([allergy.id, peanuts.id].sort());
    expect(await store.recall({ resource })).toEqual([]);
  });

  it('refuses bad input with InvalidMemoryInput, storing nothing', async () => {
    const { store } = backend.fresh();
    expect(await failureCode(store.remember({ resource: 'user:1', text: '   ' }))).toBe(ErrorCode.invalidMemoryInput);
    expect(await failureCode(store.remember({ resource: 'user:1', text: 'x'.repeat(MEMORY_LIMITS.textCharacters + 1) }))).toBe(
      ErrorCode.invalidMemoryInput,
    );
    expect(await failureCode(store.remember({ resource: '', text: 'A fact.' }))).toBe(ErrorCode.invalidMemoryInput);
    expect(await failureCode(store.remember({ resource: 'user:1\n', text: 'A fact.' }))).toBe(ErrorCode.invalidMemoryInput);
    expect(
      await failureCode(store.remember({ resource: 'user:1', text: 'A fact.', tags: Array.from({ length: 11 }, (_, index) => `tag${index}`) })),
    ).toBe(ErrorCode.invalidMemoryInput);
    expect(await failureCode(store.recall({ resource: 'user:1', limit: 0 }))).toBe(ErrorCode.invalidMemoryInput);
    expect(await failureCode(store.forget({ resource: 'user:1', matching: ' ' }))).toBe(ErrorCode.invalidMemoryInput);
    expect(await store.recall({ resource: 'user:1' })).toEqual([]);
  });
});

describe('the folder memory store', () => {
  it('is unavailable (MemoryUnavailable) when its folder is a file, and says which', async () => {
    const file = path.join(folder, 'not-a-folder');
    writeFileSync(file, 'x');
    const store = new FolderMemoryStore(file);
    expect(await failureCode(store.open())).toBe(ErrorCode.memoryUnavailable);
    await expect(store.remember({ resource: 'user:1', text: 'A fact.' })).rejects.toThrow(file);
  });
});

describe('the PostgreSQL memory store', () => {
  it('creates its table once when many workers start at the same moment', async () => {
    const table = `memory_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const stores = Array.from({ length: 6 }, () => track(new PostgresMemoryStore({ connectionString: postgres.url, table, poolSize: 1 })));
    await Promise.all(stores.map((store) => store.open()));
    await stores[0]!.remember({ resource: 'user:1', text: 'Started together.' });
    expect((await stores[5]!.recall({ resource: 'user:1' })).map((entry) => entry.text)).toEqual(['Started together.']);
    const client = new Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const indexes = await client.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [table]);
      expect(indexes.rows.map((row) => row.indexname)).toEqual([`${table}_pkey`, `${table}_resource_created`, `${table}_search`]);
    } finally {
      await client.end();
    }
  });

  it('is unavailable (MemoryUnavailable) when the server cannot be reached, naming the server but never the password', async () => {
    const port = await freePort();
    const store = track(
      new PostgresMemoryStore({ connectionString: `postgres://agents:very-secret@127.0.0.1:${port}/agents`, connectionTimeoutMs: 2_000 }),
    );
    const failure = await store.open().then(
      () => null,
      (error: Error & { code?: string }) => error,
    );
    expect(failure?.code).toBe(ErrorCode.memoryUnavailable);
    expect(failure?.message).toContain(`PostgreSQL at 127.0.0.1:${port}/agents`);
    expect(failure?.message).not.toContain('very-secret');
    expect(await failureCode(store.recall({ resource: 'user:1' }))).toBe(ErrorCode.memoryUnavailable);
  });

  it('refuses wrong credentials as unavailable, without the password in the message', async () => {
    const url = postgres.url.replace(postgres.password, 'wrong-password');
    const store = track(new PostgresMemoryStore({ connectionString: url }));
    const failure = await store.open().then(
      () => null,
      (error: Error & { code?: string }) => error,
    );
    expect(failure?.code).toBe(ErrorCode.memoryUnavailable);
    expect(failure?.message).not.toContain('wrong-password');
  });
});
