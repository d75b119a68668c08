// Finding a Temporal CLI the machine already has, and the progress of a Go build (tested with a small real Go module, not a CLI rebuild); the
// lookup order and the build record without a CLI or Go are test/unit/temporal-cli.test.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { goInstall, type BuildRecord } from '../src/devserver/go-build';
import { findOrBuildTemporalCli, findTemporalCli } from '../src/devserver/temporal-cli';

const folder = mkdtempSync(path.join(os.tmpdir(), 'temporal-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A folder standing for a machine: its home, an empty .temporal-bin, and the real CLI linked where `place` says. */
async function machineWithCli(place: (home: string) => string): Promise<{ home: string; localBinDir: string; cli: string }> {
  const home = path.join(folder, randomUUID());
  const localBinDir = path.join(home, 'project', '.temporal-bin');
  mkdirSync(localBinDir, { recursive: true });
  const cli = place(home);
  mkdirSync(path.dirname(cli), { recursive: true });
  symlinkSync(await findOrBuildTemporalCli(), cli);
  return { home, localBinDir, cli };
}

describe('finding a Temporal CLI the machine already has', () => {
  it('uses the one the Temporal installer put in ~/.temporalio/bin instead of building', async () => {
    const machine = await machineWithCli((home) => path.join(home, '.temporalio', 'bin', 'temporal'));
    const lines: string[] = [];
    const found = await findOrBuildTemporalCli({
      ignorePath: true,
      environment: { HOME: machine.home },
      localBinDir: machine.localBinDir,
      log: (line) => lines.push(line),
    });
    expect(found).toBe(machine.cli);
    expect(lines).toEqual([`Temporal CLI: ${machine.cli} (from the Temporal installer’s ~/.temporalio/bin)`]);
  });

  it('uses one that `go install` put in $GOPATH/bin', async () => {
    const machine = await machineWithCli((home) => path.join(home, 'gopath', 'bin', 'temporal'));
    expect(
      findTemporalCli({
        ignorePath: true,
        environment: { HOME: machine.home, GOPATH: path.join(machine.home, 'gopath') },
        localBinDir: machine.localBinDir,
      }),
    ).toEqual({
      path: machine.cli,
      source: `Go's bin folder ${path.join(machine.home, 'gopath', 'bin')}`,
    });
  });
});

describe('building with Go', () => {
  it('says every interval how long it has run and how many packages it compiled, against the last build', async () => {
    // A small real module; a fresh constant makes go compile it anew rather than take it from its cache.
    const module = path.join(folder, 'hello');
    mkdirSync(module, { recursive: true });
    writeFileSync(path.join(module, 'go.mod'), 'module example.com/hello\n\ngo 1.21\n');
    writeFileSync(path.join(module, 'main.go'), `package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("${randomUUID()}") }\n`);
    const binDir = path.join(folder, 'bin');
    const lastBuild: BuildRecord = { built: 'example.com/hello', seconds: 100, packages: 900, at: '2026-01-01T00:00:00.000Z' };
    const lines: string[] = [];

    const record = await goInstall('.', binDir, (line) => lines.push(line), { label: 'hello', everyMs: 20, lastBuild, cwd: module });

    expect(readFileSync(path.join(binDir, 'hello')).length).toBeGreaterThan(0);
    expect(record).toEqual({ built: '.', seconds: expect.any(Number), packages: expect.any(Number), at: expect.any(String) });
    expect(record.packages).toBeGreaterThanOrEqual(1); // example.com/hello itself
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(line).toMatch(/^ {2}\.\.\.building hello: \d+ s so far, \d+ packages compiled \(the last build here: 1 m 40 s, 900 packages\)$/);
  });
});
