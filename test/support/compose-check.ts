import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LOCAL_BIN_DIR, PROJECT_ROOT } from '../../src/devserver/temporal-cli';

/** deploy/compose-check: our Go program that loads docker-compose.yml with compose-go. */
export const COMPOSE_CHECK_SOURCE = path.join(PROJECT_ROOT, 'deploy', 'compose-check');

/**
 * The compose-check binary, built once per version of its sources into .temporal-bin/ (named by
 * their hash, so an edit rebuilds it). A cold build downloads compose-go and compiles it.
 */
export function buildComposeCheck(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(COMPOSE_CHECK_SOURCE).sort()) {
    if (/\.go$|^go\.(mod|sum)$/.test(file)) hash.update(file).update(readFileSync(path.join(COMPOSE_CHECK_SOURCE, file)));
  }
  const binary = path.join(LOCAL_BIN_DIR, `compose-check-${hash.digest('hex').slice(0, 12)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(LOCAL_BIN_DIR, { recursive: true });
  const built = spawnSync('go', ['build', '-o', binary, '.'], { cwd: COMPOSE_CHECK_SOURCE, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`go build of ${COMPOSE_CHECK_SOURCE} failed:\n${built.stderr}`);
  return binary;
}

export interface ComposeCheckResult {
  status: number | null;
  /** The problems and the summary line. */
  stderr: string;
  stdout: string;
}

/** Runs the check on a compose file (relative paths resolve from `cwd`). */
export function runComposeCheck(binary: string, options: { cwd: string; file?: string; pins?: string; print?: boolean }): ComposeCheckResult {
  const args = ['-file', options.file ?? 'docker-compose.yml', '-pins', options.pins ?? 'deploy/images.json', ...(options.print ? ['-print'] : [])];
  // An empty environment (bar PATH and HOME): what compose sees on a machine where nothing is set.
  const result = spawnSync(binary, args, { cwd: options.cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}
