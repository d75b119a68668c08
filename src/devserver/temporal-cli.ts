// Finds a Temporal CLI (which bundles the real dev server) the machine already has, or builds one from its Go module once, saying how long that takes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatSeconds, goInstall, readBuildRecord, writeBuildRecord } from './go-build';
import {
  BUILD_MODULE_GO_ENV,
  TEMPORAL_BUILD_NAME,
  TEMPORAL_CLI_VERSION,
  TEMPORAL_SERVER_VERSION,
  writeTemporalBuildModule,
} from './temporal-build-module';

/** The CLI's package, built in the module of temporal-build-module.ts. */
const CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const LOCAL_BIN_DIR = path.join(PROJECT_ROOT, '.temporal-bin');

export interface FindCliOptions {
  /** Progress lines (the first build takes minutes). */
  log?: (line: string) => void;
  /** Skip PATH lookup (tests use this to exercise the other places). */
  ignorePath?: boolean;
  /** Where TEMPORAL_CLI, HOME, GOBIN and GOPATH are read. Default: `process.env`. */
  environment?: NodeJS.ProcessEnv;
  /** Where builds go (each in a folder named for its versions) and are looked for first. Default: `.temporal-bin/` of this project. */
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
    { path: builtCliPath(localBinDir), source: `${localBinDir} (built here earlier)` },
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
      `No Temporal CLI found (TEMPORAL_CLI, PATH, ${temporalCliCandidates(options.environment, binDir)
        .map((candidate) => candidate.path)
        .join(', ')}) and no Go toolchain to build one. ` +
        'Install the Temporal CLI (https://docs.temporal.io/cli), or Go, or set TEMPORAL_ADDRESS to use an existing cluster.',
    );
  }
  const built = builtCliPath(binDir);
  mkdirSync(path.dirname(built), { recursive: true });
  const lastBuild = readBuildRecord(built);
  const expectation = lastBuild
    ? `the last build here took ${formatSeconds(lastBuild.seconds)}`
    : 'a few minutes the first time: go downloads the modules, then compiles about a thousand packages';
  const what = `the Temporal CLI ${TEMPORAL_CLI_VERSION} with server ${TEMPORAL_SERVER_VERSION}`;
  log(`Building ${what} into ${path.dirname(built)} (${expectation}). Any Temporal CLI on PATH or in TEMPORAL_CLI would be used instead.`);
  const module = mkdtempSync(path.join(os.tmpdir(), 'temporal-cli-build-'));
  try {
    await writeTemporalBuildModule(module, log);
    const record = await goInstall(CLI_PACKAGE, path.dirname(built), log, {
      label: 'the Temporal CLI',
      lastBuild,
      cwd: module,
      env: BUILD_MODULE_GO_ENV,
    });
    if (!existsSync(built)) throw new Error(`go install finished but ${built} does not exist`);
    writeBuildRecord(built, { ...record, built: TEMPORAL_BUILD_NAME });
    log(`Temporal CLI built in ${formatSeconds(record.seconds)} (${record.packages} packages compiled): ${built}`);
  } finally {
    rmSync(module, { recursive: true, force: true });
  }
  return built;
}

/** Where this project's build of the CLI goes: a folder named for the CLI and server versions, so a build of other versions is never taken for it. */
export function builtCliPath(localBinDir = LOCAL_BIN_DIR): string {
  return path.join(localBinDir, TEMPORAL_BUILD_NAME, 'temporal');
}

export function findOnPath(command: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : null;
}
