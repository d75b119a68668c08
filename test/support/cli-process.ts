// The real CLI (src/cli/cli.ts under tsx) run as a child process, the way a user runs the command.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnInGroup, stopProcessGroup } from './process-group';

const ROOT = path.resolve(__dirname, '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI (`src/cli/cli.ts` under tsx) as a child process to its end. It runs in a
 * process group of its own; what it leaves running when it exits is a leak the global teardown
 * reports. `cwd` (default: the repository) is the folder the user runs the command in.
 */
export function runCli(args: string[], environment: Record<string, string> = {}, cwd = ROOT): Promise<CliResult> {
  // tsx by its file, so that the command runs from any folder.
  const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  return new Promise((resolve, reject) => {
    const child = spawnInGroup(process.execPath, ['--import', tsx, path.join(ROOT, 'src/cli/cli.ts'), ...args], {
      cwd,
      env: { ...process.env, ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A `durable-agents serve` child process: its URL once it listens, what it printed so far, and how to stop it. */
export interface ServeProcess {
  url: string;
  output(): { stdout: string; stderr: string };
  stop(): Promise<void>;
}

/**
 * Starts the real `durable-agents serve` with `args` (add `--port 0`) and waits (up to 90 s, a busy
 * machine) for the line naming its URL. @throws when it exits first, with what it printed.
 */
export async function startServe(args: string[], environment: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawnInGroup(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/cli.ts'), 'serve', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...environment },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = () => stopProcessGroup(child);
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await sleep(100)) {
    const url = /Gateway on (http:\/\/\S+?) \(/.exec(stdout)?.[1];
    if (url) return { url, output: () => ({ stdout, stderr }), stop };
    if (child.exitCode !== null) throw new Error(`serve exited: ${stderr}`);
  }
  await stop();
  throw new Error(`serve did not listen within 90 s: ${stdout}${stderr}`);
}
