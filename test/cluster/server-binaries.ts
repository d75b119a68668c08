import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runGo } from '../../src/devserver/go-build';
import { findOnPath, LOCAL_BIN_DIR, TEMPORAL_CLI_MODULE } from '../../src/devserver/temporal-cli';

/**
 * The real Temporal server and its SQL schema tool, built once into a versioned folder of
 * .temporal-bin/ (like the Temporal CLI). 1.29.1 is the server the CLI we build (v1.5.1) embeds.
 *
 * Why not `go install go.temporal.io/server/cmd/server@v1.29.1`: that resolves the server's own
 * go.mod, which pins ~53 modules at versions other than the CLI's build list, so almost every
 * package compiles anew (4–10 minutes on CI's 2 cores). Instead a throwaway module requires both the
 * CLI and the server at those exact versions; since the CLI requires server v1.29.1, minimal version
 * selection gives exactly the CLI's build list, so the build reuses the packages compiled for the
 * CLI (seconds once the CLI is built). Same server code; dependency versions as the CLI's embedded
 * dev server. (The compose image `go install`s the server with its own go.mod: both are real builds
 * of server v1.29.1.)
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';
const [CLI_PACKAGE, CLI_VERSION] = TEMPORAL_CLI_MODULE.split('@');
const CLI_MODULE = CLI_PACKAGE.replace(/\/cmd\/temporal$/, '');
const PACKAGES = ['cmd/server', 'cmd/tools/sql'].map((pkg) => `${SERVER_MODULE}/${pkg}`);

export interface ServerBinaries {
  /** `temporal-server` (go build names it after its package: `server`). */
  server: string;
  /** `temporal-sql-tool` (`sql`). */
  sqlTool: string;
}

/** The folder the two binaries are built into (named for both versions, which fix the build); TEMPORAL_SERVER_BIN_DIR names one built elsewhere. */
export function serverBinDir(): string {
  return process.env.TEMPORAL_SERVER_BIN_DIR ?? path.join(LOCAL_BIN_DIR, `temporal-server-${TEMPORAL_SERVER_VERSION}-cli-${CLI_VERSION}`);
}

/** Both binaries when they are there, else null. */
export function locateServerBinaries(): ServerBinaries | null {
  const dir = serverBinDir();
  const binaries = { server: path.join(dir, 'server'), sqlTool: path.join(dir, 'sql') };
  return existsSync(binaries.server) && existsSync(binaries.sqlTool) ? binaries : null;
}

/** Returns both binaries, building them when absent (seconds after the CLI's build, minutes on a cold Go cache). */
export async function findOrBuildServerBinaries(log: (line: string) => void = () => {}): Promise<ServerBinaries> {
  const found = locateServerBinaries();
  if (found) return found;
  if (!findOnPath('go')) throw new Error(`No Temporal server in ${serverBinDir()} and no Go toolchain to build ${PACKAGES.join(' ')}.`);
  log(`Building the Temporal server and temporal-sql-tool ${TEMPORAL_SERVER_VERSION} (with the CLI ${CLI_VERSION}'s dependencies) into ${serverBinDir()}...`);
  const started = Date.now();
  await buildInto(serverBinDir(), log);
  const built = locateServerBinaries();
  if (!built) throw new Error(`go build finished but ${serverBinDir()} lacks server or sql`);
  log(`Temporal server and temporal-sql-tool built in ${Math.round((Date.now() - started) / 1000)} s`);
  return built;
}

/**
 * Builds both packages in a generated module into a private folder of `binDir`, then renames them
 * into place, so a concurrent or interrupted build never leaves a half-written binary.
 */
async function buildInto(binDir: string, log: (line: string) => void): Promise<void> {
  mkdirSync(binDir, { recursive: true });
  const module = mkdtempSync(path.join(os.tmpdir(), 'temporal-server-build-'));
  const staging = mkdtempSync(path.join(binDir, '.go-build-'));
  try {
    // No import of the CLI, so no `go mod tidy` (it would drop the CLI's requirement): -mod=mod lets
    // go build fill go.sum from the module proxy while keeping go.mod's two requirements.
    writeFileSync(
      path.join(module, 'go.mod'),
      `module durable-agents/temporal-server-build\n\ngo 1.25.0\n\nrequire (\n\t${CLI_MODULE} ${CLI_VERSION}\n\t${SERVER_MODULE} ${TEMPORAL_SERVER_VERSION}\n)\n`,
    );
    const env = { GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim() };
    await runGo(['build', '-o', `${staging}${path.sep}`, ...PACKAGES], { cwd: module, env }, log);
    for (const binary of readdirSync(staging)) renameSync(path.join(staging, binary), path.join(binDir, binary));
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(module, { recursive: true, force: true });
  }
}
