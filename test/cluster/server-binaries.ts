import { existsSync } from 'node:fs';
import path from 'node:path';
import { findOnPath, goInstall, LOCAL_BIN_DIR } from '../../src/devserver/temporal-cli';

/**
 * The real Temporal server and its SQL schema tool, built once from their Go module into a
 * versioned folder of .temporal-bin/ (like the Temporal CLI). 1.29.1 is the server the CLI we build
 * (v1.5.1) embeds, and its go.mod has no replace directive, so `go install` builds it.
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';
const PACKAGES = ['cmd/server', 'cmd/tools/sql'].map((pkg) => `${MODULE}/${pkg}@${TEMPORAL_SERVER_VERSION}`);

export interface ServerBinaries {
  /** `temporal-server` (go install names it after its package: `server`). */
  server: string;
  /** `temporal-sql-tool` (`sql`). */
  sqlTool: string;
}

/** The folder the two binaries are built into; TEMPORAL_SERVER_BIN_DIR names one built elsewhere. */
export function serverBinDir(): string {
  return process.env.TEMPORAL_SERVER_BIN_DIR ?? path.join(LOCAL_BIN_DIR, `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

/** Both binaries when they are there, else null. */
export function locateServerBinaries(): ServerBinaries | null {
  const dir = serverBinDir();
  const binaries = { server: path.join(dir, 'server'), sqlTool: path.join(dir, 'sql') };
  return existsSync(binaries.server) && existsSync(binaries.sqlTool) ? binaries : null;
}

/** Returns both binaries, building them with one `go install` when absent (about 10 minutes on 2 busy cores, once). */
export async function findOrBuildServerBinaries(log: (line: string) => void = () => {}): Promise<ServerBinaries> {
  const found = locateServerBinaries();
  if (found) return found;
  if (!findOnPath('go')) throw new Error(`No Temporal server in ${serverBinDir()} and no Go toolchain to build ${PACKAGES.join(' ')}.`);
  log(`Building the Temporal server and temporal-sql-tool ${TEMPORAL_SERVER_VERSION} into ${serverBinDir()} (first time only, about 10 minutes)...`);
  const started = Date.now();
  await goInstall(PACKAGES, serverBinDir(), log);
  const built = locateServerBinaries();
  if (!built) throw new Error(`go install finished but ${serverBinDir()} lacks server or sql`);
  log(`Temporal server and temporal-sql-tool built in ${Math.round((Date.now() - started) / 1000)} s`);
  return built;
}
