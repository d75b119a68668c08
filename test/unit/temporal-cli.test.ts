// Where a Temporal CLI is looked for, and the timing record of a Go build: no CLI, no Go needed (the real lookups and a build are test/temporal-cli.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { formatSeconds, progressLine, readBuildRecord, writeBuildRecord, type BuildRecord } from '../../src/devserver/go-build';
import { TEMPORAL_BUILD_NAME } from '../../src/devserver/temporal-build-module';
import { findTemporalCli, temporalCliCandidates } from '../../src/devserver/temporal-cli';

const folder = mkdtempSync(path.join(os.tmpdir(), 'temporal-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('where a Temporal CLI is looked for', () => {
  it('looks in .temporal-bin (a folder named for the versions it builds), then the installer’s ~/.temporalio/bin, then Go’s bin folder', () => {
    const paths = (environment: NodeJS.ProcessEnv) =>
      temporalCliCandidates(environment, '/work/app/.temporal-bin').map((candidate) => candidate.path);
    expect(paths({ HOME: '/home/ada' })).toEqual([
      `/work/app/.temporal-bin/${TEMPORAL_BUILD_NAME}/temporal`,
      '/home/ada/.temporalio/bin/temporal',
      '/home/ada/go/bin/temporal',
    ]);
    expect(paths({ HOME: '/home/ada', GOPATH: `/opt/go${path.delimiter}/other` })).toContain('/opt/go/bin/temporal');
    expect(paths({ HOME: '/home/ada', GOPATH: '/opt/go', GOBIN: '/opt/gobin' })).toContain('/opt/gobin/temporal');
  });

  it('finds none on a machine without one (it would build it then)', () => {
    const home = path.join(folder, 'bare');
    expect(findTemporalCli({ ignorePath: true, environment: { HOME: home }, localBinDir: path.join(home, '.temporal-bin') })).toBeNull();
  });
});

describe('the record of a Go build', () => {
  it('keeps what a build took next to its binary', () => {
    const binary = path.join(folder, 'temporal');
    expect(readBuildRecord(binary)).toBeNull();
    const record: BuildRecord = {
      built: TEMPORAL_BUILD_NAME,
      seconds: 212.4,
      packages: 1187,
      at: '2026-01-01T00:00:00.000Z',
    };
    writeBuildRecord(binary, record);
    expect(readBuildRecord(binary)).toEqual(record);
    expect(progressLine('the Temporal CLI', 75_000, 402, record)).toBe(
      '  ...building the Temporal CLI: 1 m 15 s so far, 402 packages compiled (the last build here: 3 m 32 s, 1187 packages)',
    );
    expect([formatSeconds(9.6), formatSeconds(60), formatSeconds(3725)]).toEqual(['10 s', '1 m 00 s', '62 m 05 s']);
  });
});
