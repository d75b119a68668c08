// Finds a Temporal CLI (which bundles the real dev server) the machine already has, or builds one from its Go module once, saying how long that takes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatSeconds, goInstall, readBuildRecord, writeBuildRecord } from './go-build';

/** The last CLI tag whose go.mod has no replace directive, so `go install` can build it. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const LOCAL_BIN_DIR = path.join(PROJECT_ROOT, '.temporal-bin');

export interface FindCliOptions {
  /** Progress lines (the first build takes minutes). */
  log?: (line: string) => void;
  /** Skip PATH lookup (tests use this to exercise the other places). */
  ignorePath?: boolean;
  /** Where TEMPORAL_CLI, HOME, GOBIN and GOPATH are read. Default: `process.env`. */
  environment?: NodeJS.ProcessEnv;
  /** Where a build goes and is looked for first. Default: `.temporal-bin/` of this project. */
  localBinDir?: string;
}

/** One place a Temporal CLI may already be, in the order they are tried. */
export interface CliCandidate {
  path: string;
  /** For the log line: where it was found. */
  source: string;
}

/**
 * Where to look, in order: `.temporal-bin/` (what an earlier start built here), then the places a
 * person or a tool puts the CLI: the official installer's `~/.temporalio/bin`, and Go's bin folder
 * (`$GOBIN`, else `$GOPATH/bin`, else `~/go/bin`) for a `go install` of it. TEMPORAL_CLI and PATH
 * come before all of these (`locateTemporalCli`).
 */
export function temporalCliCandidates(environment: NodeJS.ProcessEnv = process.env, localBinDir = LOCAL_BIN_DIR): CliCandidate[] {
  const home = environment.HOME ?? os.homedir();
  const goBin = environment.GOBIN || path.join(environment.GOPATH?.split(path.delimiter)[0] || path.join(home, 'go'), 'bin');
  return [
    { path: path.join(localBinDir, 'temporal'), source: `${localBinDir} (built here earlier)` },
    { path: path.join(home, '.temporalio', 'bin', 'temporal'), source: 'the Temporal installer’s ~/.temporalio/bin' },
    { path: path.join(goBin, 'temporal'), source: `Go's bin folder ${goBin}` },
  ];
}

/**
 * Where the binary is, without building it; null when it must be built. Order: `TEMPORAL_CLI` →
 * `temporal` on PATH → the places of `temporalCliCandidates`.
 * @throws Error when TEMPORAL_CLI names no file.
 */
export function locateTemporalCli(options: FindCliOptions = {}): string | null {
  return findTemporalCli(options)?.path ?? null;
}

/** As `locateTemporalCli`, with where it was found. */
export function findTemporalCli(options: FindCliOptions = {}): CliCandidate | null {
  const environment = options.environment ?? process.env;
  const fromEnv = environment.TEMPORAL_CLI;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`TEMPORAL_CLI is set to ${fromEnv}, but no file is there`);
    return { path: fromEnv, source: 'TEMPORAL_CLI' };
  }
  if (!options.ignorePath) {
    const onPath = findOnPath('temporal');
    if (onPath) return { path: onPath, source: 'PATH' };
  }
  return temporalCliCandidates(environment, options.localBinDir).find((candidate) => existsSync(candidate.path)) ?? null;
}

/**
 * Returns the path of a runnable Temporal CLI, building it with Go if the machine has none (minutes
 * the first time: go's messages, then a line every 15 s with the time so far and the packages
 * compiled; the time it took is kept next to the binary for the next build's estimate).
 */
export async function findOrBuildTemporalCli(options: FindCliOptions = {}): Promise<string> {
  const found = findTemporalCli(options);
  if (found) {
    options.log?.(`Temporal CLI: ${found.path} (from ${found.source})`);
    return found.path;
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const binDir = options.localBinDir ?? LOCAL_BIN_DIR;
  if (!findOnPath('go')) {
    throw new Error(
      `No Temporal CLI found (TEMPORAL_CLI, PATH, ${temporalCliCandidates(options.environment, binDir).map((candidate) => candidate.path).join(', ')}) and no Go toolchain to build one. ` +
        'Install the Temporal CLI (https://docs.temporal.io/cli), or Go, or set TEMPORAL_ADDRESS to use an existing cluster.',
    );
  }
  mkdirSync(binDir, { recursive: true });
  const built = path.join(binDir, 'temporal');
  const lastBuild = readBuildRecord(built);
  const expectation = lastBuild
    ? `the last build here took ${formatSeconds(lastBuild.seconds)}`
    : 'a few minutes the first time: go downloads the modules, then compiles about a thousand packages';
  log(`Building the Temporal CLI from ${TEMPORAL_CLI_MODULE} into ${binDir} (${expectation}). Any Temporal CLI on PATH or in TEMPORAL_CLI would be used instead.`);
  const record = await goInstall(TEMPORAL_CLI_MODULE, binDir, log, { label: 'the Temporal CLI', lastBuild });
  if (!existsSync(built)) throw new Error(`go install finished but ${built} does not exist`);
  writeBuildRecord(built, record);
  log(`Temporal CLI built in ${formatSeconds(record.seconds)} (${record.packages} packages compiled): ${built}`);
  return built;
}

export function findOnPath(command: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : null;
}
