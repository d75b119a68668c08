// Building Go binaries (the Temporal CLI, test servers) with progress a person can trust: go's own lines, the packages compiled, the time so far and the time the last build took.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What a finished build took, kept next to its binary (`<binary>.build.json`) so the next build can say how long to expect. */
export interface BuildRecord {
  /** What was built: `module@version` or the packages. */
  built: string;
  seconds: number;
  /** Packages go compiled (`go install -v` names each; those in go's cache are not counted). */
  packages: number;
  /** ISO date of the build. */
  at: string;
}

export interface GoProgress {
  /** What the periodic line calls the build ("the Temporal CLI"). */
  label: string;
  /** How often to say it is still going. Default 15 s. */
  everyMs?: number;
  /** The previous build of the same thing, for the estimate. */
  lastBuild?: BuildRecord | null;
}

/** The record of the last build of `binary`, or null. */
export function readBuildRecord(binary: string): BuildRecord | null {
  try {
    return JSON.parse(readFileSync(`${binary}.build.json`, 'utf8')) as BuildRecord;
  } catch {
    return null;
  }
}

export function writeBuildRecord(binary: string, record: BuildRecord): void {
  writeFileSync(`${binary}.build.json`, `${JSON.stringify(record, null, 2)}\n`);
}

/** `3 m 05 s`, `42 s`. */
export function formatSeconds(seconds: number): string {
  const whole = Math.round(seconds);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} m ${String(whole % 60).padStart(2, '0')} s`;
}

/** The periodic line: time so far, packages compiled, and how that compares with the last build. */
export function progressLine(label: string, elapsedMs: number, packages: number, lastBuild?: BuildRecord | null): string {
  const last = lastBuild ? ` (the last build here: ${formatSeconds(lastBuild.seconds)}, ${lastBuild.packages} packages)` : '';
  return `  ...building ${label}: ${formatSeconds(elapsedMs / 1000)} so far, ${packages} packages compiled${last}`;
}

/**
 * `go install -v` of one or more packages (all `@` the same version of one module) into `binDir`.
 * The binaries are built into a private folder inside `binDir` and then renamed into place, so a
 * concurrent build (another checkout, a CI step started early) or an interrupted one never leaves
 * a half-written binary. Returns what the build took.
 */
export async function goInstall(
  module: string | string[],
  binDir: string,
  log: (line: string) => void,
  progress?: GoProgress & { /** Run go here (a local module's packages). */ cwd?: string; /** Added to go's environment. */ env?: NodeJS.ProcessEnv },
): Promise<BuildRecord> {
  const packages = Array.isArray(module) ? module : [module];
  mkdirSync(binDir, { recursive: true });
  const staging = mkdtempSync(path.join(binDir, '.go-install-'));
  try {
    const started = Date.now();
    const { packages: compiled } = await runGo(
      ['install', '-v', ...packages],
      { cwd: progress?.cwd, env: { ...progress?.env, GOBIN: staging } },
      log,
      progress,
    );
    for (const binary of readdirSync(staging)) renameSync(path.join(staging, binary), path.join(binDir, binary));
    return { built: packages.join(' '), seconds: Math.round((Date.now() - started) / 100) / 10, packages: compiled, at: new Date().toISOString() };
  } finally {
    if (existsSync(staging)) rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Runs `go <args>` in `cwd` with `env` added and rejects with go's last lines when it fails. Go's
 * messages (`go: downloading …`) are echoed as they come; package names that `-v` prints are counted
 * instead, and every `progress.everyMs` a line says how long it has run and how far it got.
 */
export function runGo(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
  log: (line: string) => void,
  progress?: GoProgress,
): Promise<{ packages: number }> {
  const name = `go ${args.join(' ')}`;
  const label = progress?.label ?? name;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    let packages = 0;
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        // `-v` prints one import path per compiled package: count those, show everything else.
        if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) packages++;
        else log(`  ${line}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const heartbeat = setInterval(() => log(progressLine(label, Date.now() - started, packages, progress?.lastBuild)), progress?.everyMs ?? 15_000);
    child.on('error', (error) => {
      clearInterval(heartbeat);
      reject(error);
    });
    child.on('close', (code) => {
      clearInterval(heartbeat);
      if (code === 0) resolve({ packages });
      else reject(new Error(`${name} exited with ${code}:\n${tail.join('\n')}`));
    });
  });
}
