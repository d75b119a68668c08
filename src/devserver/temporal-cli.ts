import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * Finds the Temporal CLI binary (which bundles the real Temporal dev server), or builds it from
 * its Go module once into a project-local, git-ignored folder.
 *
 * Order: `TEMPORAL_CLI` → `temporal` on PATH → `.temporal-bin/temporal` → `go install`.
 */

/** The last CLI tag whose go.mod has no replace directive, so `go install` can build it. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const LOCAL_BIN_DIR = path.join(PROJECT_ROOT, '.temporal-bin');

export interface FindCliOptions {
  /** Progress lines (the first build takes minutes). */
  log?: (line: string) => void;
  /** Skip PATH lookup (tests use this to exercise the local build). */
  ignorePath?: boolean;
}

/** Where the binary is, without building it; null when it must be built. */
export function locateTemporalCli(options: FindCliOptions = {}): string | null {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`TEMPORAL_CLI is set to ${fromEnv}, but no file is there`);
    return fromEnv;
  }
  if (!options.ignorePath) {
    const onPath = findOnPath('temporal');
    if (onPath) return onPath;
  }
  const local = path.join(LOCAL_BIN_DIR, 'temporal');
  return existsSync(local) ? local : null;
}

/** Returns the path of a runnable Temporal CLI, building it with Go if needed. */
export async function findOrBuildTemporalCli(options: FindCliOptions = {}): Promise<string> {
  const found = locateTemporalCli(options);
  if (found) return found;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (!findOnPath('go')) {
    throw new Error(
      'No Temporal CLI found (TEMPORAL_CLI, PATH, .temporal-bin/) and no Go toolchain to build one. ' +
        'Install the Temporal CLI, or Go, or set TEMPORAL_ADDRESS to use an existing cluster.',
    );
  }
  mkdirSync(LOCAL_BIN_DIR, { recursive: true });
  log(`Building the Temporal CLI from ${TEMPORAL_CLI_MODULE} into ${LOCAL_BIN_DIR} (first time only, a few minutes)...`);
  const started = Date.now();
  await goInstall(TEMPORAL_CLI_MODULE, LOCAL_BIN_DIR, log);
  const built = path.join(LOCAL_BIN_DIR, 'temporal');
  if (!existsSync(built)) throw new Error(`go install finished but ${built} does not exist`);
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s: ${built}`);
  return built;
}

/**
 * `go install` of one or more packages (all `@` the same version of one module) into `binDir`,
 * echoing go's progress lines (the first build takes minutes). The binaries are built into a
 * private folder inside `binDir` and then renamed into place, so a concurrent build (another
 * checkout, a CI step started early) or an interrupted one never leaves a half-written binary.
 */
export async function goInstall(module: string | string[], binDir: string, log: (line: string) => void): Promise<void> {
  const packages = Array.isArray(module) ? module : [module];
  mkdirSync(binDir, { recursive: true });
  const staging = mkdtempSync(path.join(binDir, '.go-install-'));
  try {
    await runGo(['install', ...packages], { env: { GOBIN: staging } }, log);
    for (const binary of readdirSync(staging)) renameSync(path.join(staging, binary), path.join(binDir, binary));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Runs `go <args>` in `cwd` with `env` added, echoing go's progress lines (the first build takes
 * minutes), and rejects with go's last lines when it fails.
 */
export function runGo(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }, log: (line: string) => void): Promise<void> {
  const name = `go ${args.join(' ')}`;
  return new Promise((resolve, reject) => {
    // -x would be too noisy; go prints "go: downloading ..." lines, which are the progress we show.
    const child = spawn('go', args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        log(`  ${line}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const heartbeat = setInterval(() => log(`  ...still running ${name}`), 30_000);
    child.on('error', (error) => {
      clearInterval(heartbeat);
      reject(error);
    });
    child.on('exit', (code) => {
      clearInterval(heartbeat);
      if (code === 0) resolve();
      else reject(new Error(`${name} exited with ${code}:\n${tail.join('\n')}`));
    });
  });
}

export function findOnPath(command: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const found = result.stdout.trim();
  return result.status === 0 && found ? found : null;
}
