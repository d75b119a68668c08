// Child processes of tests in their own process group, stopped as a group: what a child starts (npx's worker, a CLI's server) stops with it.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { canListProcesses, describeProcesses, processesInGroup } from './test-run-processes';

/**
 * Starts `command` as the leader of a new process group (`detached`), so that stopping it reaches
 * everything it started, also what outlives the leader: `npx … durable-agents worker` ends npx on
 * SIGTERM while the worker it spawned would run on under init.
 * @example
 * const worker = spawnInGroup('npx', ['--no', '--', 'durable-agents', 'worker'], { stdio: ['ignore', 'pipe', 'pipe'] });
 * await stopProcessGroup(worker);
 */
export function spawnInGroup(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(command, args, { ...options, detached: true });
}

export interface StopGroupOptions {
  /** The first signal: SIGTERM (let it drain) unless a test means a crash (SIGKILL). */
  signal?: NodeJS.Signals;
  /** How long the group has to exit before SIGKILL. Default 15 s. */
  graceMs?: number;
}

/**
 * Signals the child's whole process group and resolves once no member of it is left (SIGKILL after
 * `graceMs`). Safe to call again, or after the leader exited on its own.
 * @throws Error listing the members that survived SIGKILL for 10 s (never seen; it would be a hung kernel call).
 */
export async function stopProcessGroup(child: ChildProcess, options: StopGroupOptions = {}): Promise<void> {
  const group = child.pid;
  if (group === undefined) return;
  signalGroup(group, options.signal ?? 'SIGTERM');
  if (await groupGone(group, options.graceMs ?? 15_000)) return;
  signalGroup(group, 'SIGKILL');
  if (await groupGone(group, 10_000)) return;
  throw new Error(`process group ${group} survived SIGKILL:\n${describeProcesses(processesInGroup(group))}`);
}

/** Sends `signal` to every member of the group; nothing happens when none is left. */
export function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function groupGone(group: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (!groupAlive(group)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Whether any member still runs. /proc tells zombies (exited, waiting for init to reap them) from
 * live processes; without it, a zombie counts as alive until reaped.
 */
function groupAlive(group: number): boolean {
  if (canListProcesses) return processesInGroup(group).length > 0;
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}
