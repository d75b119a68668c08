import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../src/devserver/dev-server';
import { findOrBuildTemporalCli, locateTemporalCli } from '../src/devserver/temporal-cli';

const folder = mkdtempSync(path.join(os.tmpdir(), 'devserver-'));
let server: DevServer | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(folder, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded Temporal dev server', () => {
  it('prefers TEMPORAL_CLI and names it when it does not exist', async () => {
    const previous = process.env.TEMPORAL_CLI;
    try {
      const real = await findOrBuildTemporalCli();
      process.env.TEMPORAL_CLI = real;
      expect(locateTemporalCli()).toBe(real);
      process.env.TEMPORAL_CLI = path.join(folder, 'missing-temporal');
      expect(() => locateTemporalCli()).toThrow(`TEMPORAL_CLI is set to ${path.join(folder, 'missing-temporal')}`);
    } finally {
      if (previous === undefined) delete process.env.TEMPORAL_CLI;
      else process.env.TEMPORAL_CLI = previous;
    }
  });

  it('serves on loopback with the Web UI and the runtime search attributes, and stops without orphans', async () => {
    server = await startDevServer({ port: 0, uiPort: 0, dbFile: path.join(folder, 'dev.db') });
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const ui = await fetch(server.uiUrl!);
    expect(ui.status).toBe(200);
    const connection = await Connection.connect({ address: server.address });
    try {
      const attributes = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(Object.keys(attributes.customAttributes ?? {})).toEqual(expect.arrayContaining(['AgentName', 'AgentStatus']));
    } finally {
      await connection.close();
    }
    const pid = server.pid;
    await server.stop();
    server = undefined;
    expect(isAlive(pid)).toBe(false);
  });
});
