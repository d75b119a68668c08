// Finding the processes a test run started, wherever they ended up: every process of the run carries a marker variable.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The global setup sets this variable (a fresh id) in the jest process; every process the run
 * starts inherits it (jest's workers, the dev server, CLI and worker processes, and whatever
 * those start), unless a spawn replaces the environment. A process carrying the id after the run
 * was left behind, even one whose parent died and which now lives under init.
 */
export const TEST_RUN_VARIABLE = 'DURABLE_AGENTS_TEST_RUN';

export interface ProcessEntry {
  pid: number;
  /** Its process group. */
  group: number;
  /** Its command line, for the report. */
  command: string;
}

/** Whether this machine lists processes through /proc (Linux); elsewhere nothing is found. */
export const canListProcesses = (() => {
  try {
    readdirSync('/proc/self');
    return true;
  } catch {
    return false;
  }
})();

/** Live processes (zombies left out: they are gone, only not yet reaped) with `runId` in their environment. */
export function processesOfTestRun(runId: string, except: ReadonlySet<number> = new Set()): ProcessEntry[] {
  const marker = `${TEST_RUN_VARIABLE}=${runId}`;
  return liveProcesses().filter((entry) => !except.has(entry.pid) && environmentOf(entry.pid).includes(marker));
}

/** Live members of process group `group`. */
export function processesInGroup(group: number): ProcessEntry[] {
  return liveProcesses().filter((entry) => entry.group === group);
}

/** Whether `pid` runs (a zombie does not: it has exited and waits to be reaped). */
export function processAlive(pid: number): boolean {
  if (canListProcesses) return liveProcesses().some((entry) => entry.pid === pid);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to each process, ignoring those that are already gone. */
export function signalProcesses(entries: ProcessEntry[], signal: NodeJS.Signals): void {
  for (const entry of entries) {
    try {
      process.kill(entry.pid, signal);
    } catch {
      // It exited meanwhile.
    }
  }
}

/** One line per process: pid, group and command line. */
export function describeProcesses(entries: ProcessEntry[]): string {
  return entries.map((entry) => `  pid ${entry.pid} (group ${entry.group}): ${entry.command}`).join('\n');
}

function liveProcesses(): ProcessEntry[] {
  if (!canListProcesses) return [];
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readOrEmpty(`/proc/${name}/stat`);
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    if (!state || state === 'Z' || state === 'X') continue;
    entries.push({ pid: Number(name), group: Number(fields[2]), command: readOrEmpty(`/proc/${name}/cmdline`).split('\0').join(' ').trim() });
  }
  return entries;
}

function environmentOf(pid: number): string[] {
  return readOrEmpty(`/proc/${pid}/environ`).split('\0');
}

/** A /proc file's text, or '' when the process is gone or not ours to read. */
function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
