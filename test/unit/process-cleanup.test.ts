// Tests stop every process they start: a child's whole process group is stopped, and a run that leaves a process behind fails.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnInGroup, stopProcessGroup } from '../support/process-group';
import { processAlive } from '../support/test-run-processes';

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURE_CONFIG = path.join(__dirname, '..', 'process-cleanup-fixture', 'jest.config.js');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'process-cleanup-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function until(condition: () => boolean, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** A jest run of one fixture (test/process-cleanup-fixture) in its own process group, as a terminal runs `npx jest`. */
function startFixtureRun(fixture: string, pidFile: string) {
  const child = spawnInGroup(process.execPath, [require.resolve('jest/bin/jest'), '-c', FIXTURE_CONFIG, fixture], {
    cwd: ROOT,
    env: { ...process.env, FIXTURE_PID_FILE: pidFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('processes started by tests', () => {
  it('are stopped with everything they started, also what outlived its parent (npx and its worker)', async () => {
    // The shell starts sleep and exits at once: sleep lives on in the group, as npx's worker did.
    const parent = spawnInGroup('sh', ['-c', 'sleep 3600 & echo $!'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const orphan = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    await new Promise((resolve) => parent.once('exit', resolve));
    expect(processAlive(orphan)).toBe(true);

    await stopProcessGroup(parent);
    expect(processAlive(orphan)).toBe(false);
  });

  it('fail the jest run when one is still running after the tests, and are killed then', async () => {
    const pidFile = path.join(scratch, 'leaks.pid');
    const run = startFixtureRun('leaks', pidFile);
    const code = await run.exited;
    const leaked = Number(readFileSync(pidFile, 'utf8'));
    expect(code).toBe(1);
    expect(run.output()).toContain('1 passed');
    expect(run.output()).toContain('The tests left 1 process(es) running (now killed)');
    expect(run.output()).toContain(`pid ${leaked} (group ${leaked}): sleep 3600`);
    expect(processAlive(leaked)).toBe(false);
  }, 60_000);

  it('are ended when jest is interrupted (Ctrl-C) before its teardown', async () => {
    const pidFile = path.join(scratch, 'hangs.pid');
    const run = startFixtureRun('hangs', pidFile);
    expect(await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 30_000)).toBe(true);
    const leaked = Number(readFileSync(pidFile, 'utf8'));
    expect(processAlive(leaked)).toBe(true);

    // The terminal's Ctrl-C: SIGINT to jest's foreground group, which the leaked process (a group of its own) never gets.
    process.kill(-run.child.pid!, 'SIGINT');
    await run.exited;
    // The watchdog sees jest's pipe close, signals the run's processes and SIGKILLs them 3 s later at the latest.
    expect(await until(() => !processAlive(leaked), 15_000)).toBe(true);
  }, 60_000);
});
