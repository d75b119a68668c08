import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { freePort } from '../src/devserver/dev-server';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { AGENT_SEARCH_ATTRIBUTES } from '../src/protocol/search-attributes';
import { runCli } from './support/cli-process';
import { eventually } from './support/test-env';

/**
 * `durable-agents setup` against the test run's real server: the one-shot step of a cluster
 * (docker-compose.yml's `setup` service). Each test uses a namespace of its own.
 */
let connection: Connection;

beforeAll(async () => {
  connection = await Connection.connect(resolveTemporalTarget().connectionOptions);
});

afterAll(async () => {
  await connection.close();
});

const DAY = 86_400_000;

function freshNamespace(): string {
  return `setup-${randomUUID().slice(0, 8)}`;
}

async function retentionOf(namespace: string): Promise<number> {
  const described = await connection.workflowService.describeNamespace({ namespace });
  return tsToMs(described.config?.workflowExecutionRetentionTtl);
}

function setup(namespace: string, args: string[]) {
  return runCli(['setup', ...args], { TEMPORAL_NAMESPACE: namespace });
}

describe('setup', () => {
  it('creates a missing namespace with the retention asked for and registers the search attributes on it', async () => {
    const namespace = freshNamespace();
    const result = await setup(namespace, ['--retention', '7d', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { created: boolean; retentionMs: number; added: string[] };
    expect(report).toMatchObject({ namespace, created: true, retentionMs: 7 * DAY });
    expect(report.added.sort()).toEqual(AGENT_SEARCH_ATTRIBUTES.map((attribute) => attribute.name).sort());
    expect(await retentionOf(namespace)).toBe(7 * DAY);
    const attributes = await connection.operatorService.listSearchAttributes({ namespace });
    for (const attribute of AGENT_SEARCH_ATTRIBUTES) expect(Object.keys(attributes.customAttributes ?? {})).toContain(attribute.name);
  });

  it("keeps an existing namespace's retention and says so, and changes it only with --update-retention", async () => {
    const namespace = freshNamespace();
    expect((await setup(namespace, ['--retention', '3d'])).code).toBe(0);

    const again = await setup(namespace, ['--retention', '30d']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Namespace ${namespace} exists with retention 3d (kept; --update-retention sets 30d).`);
    expect(again.stdout).toContain('already has AgentName');
    expect(await retentionOf(namespace)).toBe(3 * DAY);

    const updated = await setup(namespace, ['--retention', '30d', '--update-retention']);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain(`Namespace ${namespace}: retention changed from 3d to 30d.`);
    expect(await retentionOf(namespace)).toBe(30 * DAY);
  });

  it('refuses a retention that is not a duration, too short or absurdly long, before touching the server (exit 2)', async () => {
    const namespace = freshNamespace();
    for (const [value, reason] of [
      ['thirty days', "'thirty days' is not a duration such as 30d or 72h"],
      ['30m', "'30m' is shorter than 1h"],
      ['0d', "'0d' is shorter than 1h"],
      ['36500d', "'36500d' is longer than 3650d"],
    ]) {
      const result = await setup(namespace, ['--retention', value!]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--retention: ${reason}`);
    }
    await expect(connection.workflowService.describeNamespace({ namespace })).rejects.toMatchObject({ code: 5 });
  });

  it('with --wait, keeps trying a server that is not there yet and then names it in the error', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const result = await runCli(['setup', '--wait', '3s'], { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: freshNamespace() });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`Waiting for Temporal at ${address}`);
    expect(result.stderr).toContain(`No Temporal server answered at ${address} within 3s`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
  });
});

describe('setup run concurrently', () => {
  it('succeeds twice on a fresh namespace, with or without --wait, 10 times, every attribute on one field', async () => {
    for (let trial = 1; trial <= 10; trial++) {
      const namespace = freshNamespace();
      const wait = trial % 2 === 0 ? ['--wait', '1m'] : [];
      const results = await Promise.all([setup(namespace, wait), setup(namespace, wait)]);
      for (const result of results) expect({ trial, code: result.code, stderr: result.stderr }).toEqual({ trial, code: 0, stderr: '' });
      // One of them created it, the other found it (or both found it after a third party).
      expect(results.filter((result) => result.stdout.includes(`Created namespace ${namespace}`)).length).toBeLessThanOrEqual(1);
      const aliases = await aliasesOf(namespace);
      expect(Object.values(aliases).sort()).toEqual(AGENT_SEARCH_ATTRIBUTES.map((attribute) => attribute.name).sort());
    }
  }, 600_000);

  it('does not give an attribute the namespace has a second field, as servers before 1.31 did (if this fails, racing registrations can duplicate again)', async () => {
    const namespace = freshNamespace();
    expect((await setup(namespace, [])).code).toBe(0);
    const before = await aliasesOf(namespace);
    const field = freeKeywordFields(before)[0]!;
    // What a registration that lost a race sends: the attribute it read as missing, on a free field.
    // Server 1.32.2 answers OK (it logs a warning) and keeps the attribute on its field.
    await connection.workflowService.updateNamespace({ namespace, config: { customSearchAttributeAliases: { [field]: 'AgentName' } } });
    expect(await aliasesOf(namespace)).toEqual(before);
  });

  it('keeps one field of an attribute on two (as servers before 1.31 could leave it), on a namespace without runs', async () => {
    const namespace = freshNamespace();
    expect((await setup(namespace, [])).code).toBe(0);
    const fields = await duplicateAgentName(namespace);

    const result = await setup(namespace, ['--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { repairedAliases: { alias: string; fields: string[] }[] };
    expect(report.repairedAliases).toEqual([{ alias: 'AgentName', fields }]);
    const aliases = await aliasesOf(namespace);
    expect(Object.entries(aliases).filter(([, alias]) => alias === 'AgentName')).toEqual([[fields[0], 'AgentName']]);
  });

  it('refuses to choose between two fields of an attribute once runs exist, naming the attribute and fields', async () => {
    const namespace = freshNamespace();
    expect((await setup(namespace, [])).code).toBe(0);
    const fields = await duplicateAgentName(namespace);
    const client = new Client({ connection, namespace });
    const workflowId = `setup-run-${randomUUID()}`;
    await eventually(async () => {
      await client.workflow.start('noWorkerHasThis', { taskQueue: `nobody-${randomUUID()}`, workflowId });
      return true;
    }, 30_000);
    try {
      await eventually(async () => ((await client.workflow.count()).count > 0 ? true : undefined), 30_000);
      const result = await setup(namespace, []);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `Namespace ${namespace} has search attributes on more than one field (AgentName on ${fields[0]} and ${fields[1]})`,
      );
      expect(Object.values(await aliasesOf(namespace)).filter((alias) => alias === 'AgentName')).toHaveLength(2);
    } finally {
      await client.workflow.getHandle(workflowId).terminate('test over');
    }
  });
});

/** The namespace's SQL visibility fields and the attribute each carries. */
async function aliasesOf(namespace: string): Promise<Record<string, string>> {
  const described = await connection.workflowService.describeNamespace({ namespace });
  return described.config?.customSearchAttributeAliases ?? {};
}

/** The Keyword fields no attribute uses, in order. */
function freeKeywordFields(aliases: Record<string, string>): string[] {
  return Array.from({ length: 10 }, (_, index) => `Keyword${String(index + 1).padStart(2, '0')}`).filter((candidate) => !(candidate in aliases));
}

/**
 * Leaves AgentName on two fields, the state racing registrations could leave on servers before
 * 1.31, and returns them sorted. A second field for an attribute already present is ignored from
 * 1.31 on (the test above), but server 1.32.2 still accepts one update naming an absent attribute
 * on two fields: so the attribute is removed, then put on two free fields at once.
 */
async function duplicateAgentName(namespace: string): Promise<string[]> {
  const aliases = await aliasesOf(namespace);
  const current = Object.keys(aliases).find((field) => aliases[field] === 'AgentName')!;
  await connection.workflowService.updateNamespace({ namespace, config: { customSearchAttributeAliases: { [current]: '' } } });
  const fields = freeKeywordFields(await aliasesOf(namespace)).slice(0, 2);
  await connection.workflowService.updateNamespace({
    namespace,
    config: { customSearchAttributeAliases: Object.fromEntries(fields.map((field) => [field, 'AgentName'])) },
  });
  const carrying = Object.entries(await aliasesOf(namespace)).filter(([, alias]) => alias === 'AgentName');
  expect(carrying.map(([field]) => field).sort()).toEqual(fields);
  return fields;
}
