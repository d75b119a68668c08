import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runGo } from '../../src/devserver/go-build';
import { findOnPath, LOCAL_BIN_DIR } from '../../src/devserver/temporal-cli';
import {
  BUILD_MODULE_GO_ENV,
  TEMPORAL_BUILD_NAME,
  TEMPORAL_SERVER_VERSION,
  writeTemporalBuildModule,
} from '../../src/devserver/temporal-build-module';

/**
 * The real Temporal server and its SQL schema tool, built once into a versioned folder of
 * .temporal-bin/ (like the Temporal CLI), at the server release the CLI we build embeds
 * (src/devserver/temporal-build-module.ts).
 *
 * Why not `go install go.temporal.io/server/cmd/server@<version>`: that resolves the server's own
 * go.mod, whose build list differs from the CLI's, so almost every package compiles anew (4–10
 * minutes on CI's 2 cores). Built in the CLI's build module instead, minimal version selection
 * gives exactly the CLI's build list, so the build reuses the packages compiled for the CLI
 * (seconds once the CLI is built). Same server code; dependency versions as the embedded dev
 * server. (The compose image `go install`s the server with its own go.mod: both are real builds.)
 */
export { TEMPORAL_SERVER_VERSION };
const PACKAGES = ['cmd/server', 'cmd/tools/sql'].map((pkg) => `go.temporal.io/server/${pkg}`);

export interface ServerBinaries {
  /** `temporal-server` (go build names it after its package: `server`). */
  server: string;
  /** `temporal-sql-tool` (`sql`). */
  sqlTool: string;
}

/** The folder the two binaries are built into (named for both versions, which fix the build); TEMPORAL_SERVER_BIN_DIR names one built elsewhere. */
export function serverBinDir(): string {
  return process.env.TEMPORAL_SERVER_BIN_DIR ?? path.join(LOCAL_BIN_DIR, `temporal-server-${TEMPORAL_BUILD_NAME}`);
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
  log(
    `Building the Temporal server and temporal-sql-tool ${TEMPORAL_SERVER_VERSION} (with the Temporal CLI build's dependencies) into ${serverBinDir()}...`,
  );
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
    await writeTemporalBuildModule(module, log);
    await runGo(['build', '-o', `${staging}${path.sep}`, ...PACKAGES], { cwd: module, env: BUILD_MODULE_GO_ENV }, log);
    for (const binary of readdirSync(staging)) renameSync(path.join(staging, binary), path.join(binDir, binary));
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(module, { recursive: true, force: true });
  }
}
