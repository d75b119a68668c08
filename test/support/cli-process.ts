// The real CLI (src/cli/cli.ts under tsx) run as a child process, the way a user runs the command.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnInGroup } from './process-group';

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
