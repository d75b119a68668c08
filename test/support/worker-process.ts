// A real `durable-agents worker` process with the crash tools, for tests that kill workers.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { spawnInGroup, stopProcessGroup } from './process-group';

const ROOT = path.resolve(__dirname, '..', '..');

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Signals the worker and everything it started (its process group); resolves when all are gone. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `durable-agents worker` as a real child process (tsx), with the crash tools (or another
 * tools module: a path relative to the repository, or absolute), on a task queue; resolves once it polls.
 */
export async function startWorkerProcess(
  taskQueue: string,
  environment: Record<string, string>,
  toolsModule = 'test/support/crash-tools.ts',
): Promise<WorkerProcess> {
  const child = spawnInGroup(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'src/cli/cli.ts'), 'worker', '--tools', path.resolve(ROOT, toolsModule), '--task-queue', taskQueue],
    { cwd: ROOT, env: { ...process.env, ...environment }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start within 60 s:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('Worker polling')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before polling:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );
  const kill = async (signal: NodeJS.Signals) => {
    await stopProcessGroup(child, { signal });
    // The group is gone; 'exit' (and the last output) may still be on its way to this process.
    await exited;
  };
  try {
    await started;
  } catch (error) {
    await kill('SIGKILL');
    throw error;
  }
  return { child, output: () => output, kill };
}

/** The lines the crash tools logged to `logFile` (CRASH_LOG) so far, across every worker process; none before the first. */
export function loggedExecutions(logFile: string): string[] {
  return existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : [];
}
