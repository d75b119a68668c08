import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { defaultReadyTimeoutMs, startDevServer, type DevServer } from '../src/devserver/dev-server';
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

  it('keeps its database in WAL mode, and a run started before the server process is killed is there after a restart', async () => {
    const dbFile = path.join(folder, 'killed.db');
    server = await startDevServer({ port: 0, uiPort: null, dbFile });
    // Bytes 18 and 19 of an SQLite file are its write and read versions: 2 in WAL mode, 1 with a rollback journal.
    expect([...readFileSync(dbFile).subarray(18, 20)]).toEqual([2, 2]);
    const workflowId = `killed-${Date.now()}`;
    let connection = await Connection.connect({ address: server.address });
    try {
      // No worker polls this queue: the run stays open, its start committed and nothing else.
      await new Client({ connection }).workflow.start('nobodyRunsThis', { taskQueue: 'no-worker', workflowId });
    } finally {
      await connection.close();
    }
    process.kill(server.pid, 'SIGKILL');
    await server.stop();

    server = await startDevServer({ port: 0, uiPort: null, dbFile });
    connection = await Connection.connect({ address: server.address });
    try {
      const description = await new Client({ connection }).workflow.getHandle(workflowId).describe();
      expect(description.status.name).toBe('RUNNING');
    } finally {
      await connection.close();
    }
    await server.stop();
    server = undefined;
  });

  describe('a start that fails', () => {
    /** A stand-in for the Temporal CLI: writes a log, then exits or never serves. */
    function fakeCli(name: string, body: string): string {
      const file = path.join(folder, name);
      writeFileSync(file, `#!/bin/sh\n${body}\n`);
      chmodSync(file, 0o755);
      return file;
    }

    it("shows the server's own last log lines when it exits before serving", async () => {
      const cliPath = fakeCli('exits', 'echo "starting up"\necho "sqlite: database is locked" >&2\nexit 3');
      const start = startDevServer({ cliPath, port: 0, uiPort: null, dbFile: path.join(folder, 'exits.db') });
      await expect(start).rejects.toThrow(/exited with code 3 before serving[\s\S]*last log lines:[\s\S]*sqlite: database is locked/);
    });

    it('says it is still waiting while it waits, and shows the last log lines when it never serves', async () => {
      const cliPath = fakeCli('stalls', 'echo "applying schema migration 1"\necho "applying schema migration 2"\nexec sleep 60');
      const progress: string[] = [];
      const start = startDevServer({
        cliPath,
        port: 0,
        uiPort: null,
        dbFile: path.join(folder, 'fresh', 'dev.db'),
        readyTimeoutMs: 1500,
        progressEveryMs: 400,
        log: (line) => progress.push(line),
      });
      const error = await start.then(
        () => null,
        (failure: Error) => failure,
      );
      expect(error?.message).toMatch(/did not serve on 127\.0\.0\.1:\d+ within 1500 ms/);
      expect(error?.message).toContain('  applying schema migration 2');
      expect(error?.message).toContain('A second start reuses the database');
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0]).toMatch(
        /^Still waiting for the Temporal dev server on 127\.0\.0\.1:\d+: \d+ s \(first start: creating the database .*fresh\/dev\.db\)\.\.\.$/,
      );
    });

    it('starts again on other ports when a server on picked ports exits before serving, and never when the caller chose the port', async () => {
      // Exits like a server whose port was taken in the meantime, once; then the real CLI serves.
      const realCli = await findOrBuildTemporalCli();
      const starts = path.join(folder, 'flaky-starts');
      const cliPath = fakeCli(
        'flaky',
        `echo "$*" >> ${starts}\nif [ ! -f ${starts}.failed ]; then touch ${starts}.failed; echo "listen tcp: address already in use" >&2; exit 2; fi\nexec ${realCli} "$@"`,
      );
      const progress: string[] = [];
      const flaky = await startDevServer({
        cliPath,
        port: 0,
        uiPort: null,
        dbFile: path.join(folder, 'flaky.db'),
        log: (line) => progress.push(line),
      });
      try {
        const connection = await Connection.connect({ address: flaky.address });
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        await connection.close();
      } finally {
        await flaky.stop();
      }
      const ports = readFileSync(starts, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.match(/--port (\d+)/)![1]);
      expect(ports).toHaveLength(2);
      expect(progress).toContain('The Temporal dev server exited before serving (start 1 of 3); starting it again on other ports.');

      // A server that always exits: three starts on picked ports, then the error; one on a chosen port.
      const always = path.join(folder, 'always-starts');
      const failing = fakeCli('always', `echo "$*" >> ${always}\nexit 2`);
      await expect(startDevServer({ cliPath: failing, port: 0, uiPort: null, dbFile: path.join(folder, 'always.db') })).rejects.toThrow(
        /exited with code 2 before serving/,
      );
      expect(readFileSync(always, 'utf8').trim().split('\n')).toHaveLength(3);
      rmSync(always);
      await expect(startDevServer({ cliPath: failing, port: 7999, uiPort: null, dbFile: path.join(folder, 'always.db') })).rejects.toThrow(
        /exited with code 2 before serving on 127\.0\.0\.1:7999/,
      );
      expect(readFileSync(always, 'utf8').trim().split('\n')).toHaveLength(1);
    });

    it('gives a first start (no database yet) more time than a restart', () => {
      expect(defaultReadyTimeoutMs(true)).toBe(180_000);
      expect(defaultReadyTimeoutMs(false)).toBe(60_000);
    });
  });
});
