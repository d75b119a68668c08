import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDevServer, freePort, type DevServer } from '../src/devserver/dev-server';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { tools } from './support/crash-tools';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';

/** This test restarts a server of its own (never the shared one), from the same database file. */
let folder: string;
let server: DevServer | undefined;
let env: TestEnvironment | undefined;

beforeAll(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'restart-'));
  process.env.CRASH_LOG = path.join(folder, 'executions.log');
});

afterAll(async () => {
  await env?.close();
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('the dev server restarted mid-run', () => {
  it('keeps the run in its database file and the run completes', async () => {
    const port = await freePort();
    const dbFile = path.join(folder, 'temporal.db');
    server = await startDevServer({ port, uiPort: null, dbFile });
    const target = { ...resolveTemporalTarget({}), address: server.address, connectionOptions: { address: server.address } };
    const release = path.join(folder, 'release');
    env = await createTestEnvironment({
      target,
      tools,
      scripts: {
        restart: {
          replies: [
            { toolCalls: [{ name: 'record', args: { label: 'A' } }] },
            { toolCalls: [{ name: 'wait_for_release', args: { label: 'B', release } }] },
            { text: 'Survived: {{tool:wait_for_release}}' },
          ],
        },
      },
    });
    const run = await env.agents.startRun({
      config: { name: 'restart', model: 'scripted:restart', tools: ['record', 'wait_for_release'] },
      task: 'Go',
    });
    const log = () => (existsSync(process.env.CRASH_LOG!) ? readFileSync(process.env.CRASH_LOG!, 'utf8') : '');
    await eventually(() => log().includes('start B'), 60_000);

    await server.stop();
    server = await startDevServer({ port, uiPort: null, dbFile });
    writeFileSync(release, 'go');

    const result = await run.result();
    expect(result.output).toBe('Survived: released B');
    expect(
      log()
        .split('\n')
        .filter((line) => line === 'done A'),
    ).toHaveLength(1);
  });

  it('keeps a run waiting for approval across a server restart; the approval then applies', async () => {
    const port = await freePort();
    const dbFile = path.join(folder, 'approval.db');
    await env?.close();
    await server?.stop();
    server = await startDevServer({ port, uiPort: null, dbFile });
    const target = { ...resolveTemporalTarget({}), address: server.address, connectionOptions: { address: server.address } };
    env = await createTestEnvironment({
      target,
      tools,
      scripts: { gated: { replies: [{ toolCalls: [{ name: 'record', args: { label: 'payment' } }] }, { text: 'Paid: {{tool:record}}' }] } },
    });
    const run = await env.agents.startRun({
      config: { name: 'payer', model: 'scripted:gated', tools: ['record'], hitl_tools: ['record'] },
      task: 'Pay',
    });
    await eventually(async () => ((await run.status()).pendingApprovals.length === 1 ? true : undefined), 30_000);

    await server.stop();
    server = await startDevServer({ port, uiPort: null, dbFile });

    const pending = await eventually(async () => {
      const approvals = (await run.status()).pendingApprovals;
      return approvals.length > 0 ? approvals : undefined;
    }, 60_000);
    expect(pending.map((request) => request.approvalId)).toEqual(['step-1.call-1']);
    await run.approve('step-1.call-1', { decidedBy: 'treasurer' });
    expect((await run.result()).output).toBe('Paid: recorded payment');
  });
});
