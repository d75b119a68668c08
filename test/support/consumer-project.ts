// A new user's project made from test/consumer-template, with the packed package installed and its commands run as child processes.
import type { ChildProcess } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { spawnInGroup, stopProcessGroup } from './process-group';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CONSUMER_TEMPLATE = path.join(REPO_ROOT, 'test', 'consumer-template');

/** The peers every project installs. */
export const PEERS = ['@temporalio/client', '@temporalio/worker', '@temporalio/workflow', '@temporalio/activity', '@temporalio/common', 'zod'];
/** Every required peer the package declares, pinned to the repo's versions (npm would otherwise pick the newest); optional ones (the S3 client) are left out, as a user without S3 would. */
const MANIFEST = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
export const DECLARED_PEERS = Object.keys(MANIFEST.peerDependencies ?? {}).filter((name) => !MANIFEST.peerDependenciesMeta?.[name]?.optional);

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface CommandOptions {
  cwd: string;
  timeoutMs: number;
  env?: Record<string, string | undefined>;
}

/**
 * Runs a command to its end (its process group killed after `timeoutMs`); never rejects on a
 * non-zero exit. It resolves once every process holding its output has exited, so what the command
 * started (npx's child) has ended too.
 */
export function runCommand(command: string, args: string[], options: CommandOptions): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawnInGroup(command, args, { cwd: options.cwd, env: childEnvironment(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs} ms]`;
      void stopProcessGroup(child, { signal: 'SIGKILL' });
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The command and its whole output, for an assertion message. */
export function describeCommand(label: string, result: CommandResult): string {
  return `${label} exited with ${result.code ?? result.signal} after ${result.ms} ms\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/**
 * The test process's environment without what would leak into the child: npm's lifecycle
 * variables (a `npm_config_local_prefix` of the repo would make `npm install` write there) and
 * the test run's own agent settings (its workflow bundle is built from the repo's sources).
 */
export function childEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const keepNpm = new Set(['npm_config_registry', 'npm_config_cache', 'npm_config_userconfig']);
  const environment: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_') && !keepNpm.has(lower)) continue;
    if (key.startsWith('AGENT_')) continue;
    environment[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete environment[key];
    else environment[key] = value;
  }
  return environment;
}

/** `npm pack` of the repo (its prepack builds dist/); returns the tarball's path. */
export async function packRepository(destination: string): Promise<{ tarball: string; result: CommandResult }> {
  const result = await runCommand('npm', ['pack', '--pack-destination', destination], { cwd: REPO_ROOT, timeoutMs: 8 * 60_000 });
  const tarballs = readdirSync(destination).filter((name) => name.endsWith('.tgz'));
  if (result.code !== 0 || tarballs.length !== 1) throw new Error(describeCommand('npm pack', result));
  return { tarball: path.join(destination, tarballs[0]!), result };
}

/** Copies the template (without anything built or installed in it) into `folder`. */
export function copyTemplate(folder: string): void {
  cpSync(CONSUMER_TEMPLATE, folder, {
    recursive: true,
    filter: (source) => !['node_modules', 'dist'].includes(path.basename(source)),
  });
}

/** `name@version` of each package as installed in the repo, so npm's cache can serve the same. */
export function repoVersions(names: string[]): string[] {
  return names.map((name) => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
    return `${name}@${manifest.version}`;
  });
}

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM to the process and everything it started (its group), then SIGKILL to what is left after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts a long-running process and resolves once its output contains `readyLine`. */
export async function startUntilReady(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; readyLine: string; timeoutMs: number },
): Promise<RunningProcess> {
  const child = spawnInGroup(command, args, { cwd: options.cwd, env: childEnvironment(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // 'close': every process writing to the pipes (npx and the worker it started) has exited and its last lines are read.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const running: RunningProcess = {
    child,
    output: () => output,
    async stop(graceMs = 15_000) {
      await stopProcessGroup(child, { signal: 'SIGTERM', graceMs });
      await closed;
    },
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      void running
        .stop(1_000)
        .finally(() => reject(new Error(`${command} ${args.join(' ')} was not ready within ${options.timeoutMs} ms:\n${output}`)));
    }, options.timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(options.readyLine)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // What it started may outlive it.
      void running
        .stop(1_000)
        .finally(() => reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal} before it was ready:\n${output}`)));
    });
  });
  return running;
}

/** What a command printed, less npm's warnings about the machine's own npm config. */
export function printed(result: CommandResult): string {
  return (result.stdout + result.stderr)
    .split('\n')
    .filter((line) => !line.startsWith('npm warn'))
    .join('\n');
}

/** Node's output of a script whose last stdout line is JSON. */
export function lastJsonLine(result: CommandResult): unknown {
  const line = result.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line);
}
