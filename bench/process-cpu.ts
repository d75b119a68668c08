// CPU time of other processes (the dev server, the Temporal server, PostgreSQL and its backends) from /proc, for the bench's per-run CPU figures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: clock ticks per second in /proc/<pid>/stat, 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

/** A /proc stat file's command name (which may hold spaces) and its fields after it, from `state` on; null if the process or thread is gone. */
function readStat(file: string): { name: string; fields: string[] } | null {
  if (!existsSync(file)) return null;
  try {
    const stat = readFileSync(file, 'utf8');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return null; // exited between the check and the read
  }
}

/** The fields of /proc/<pid>/stat after the command name, from `state` on; null if the process is gone. */
const statFields = (pid: number): string[] | null => readStat(`/proc/${pid}/stat`)?.fields ?? null;

const ticksToMs = (ticks: number): number => (ticks * 1000) / TICKS_PER_SECOND;

/** user + system CPU of a process, ms (null where /proc is missing). */
export function processCpuMsOf(pid: number): number | null {
  const fields = statFields(pid);
  // utime and stime are the 12th and 13th fields from `state`.
  return fields ? ticksToMs(Number(fields[11]) + Number(fields[12])) : null;
}

/**
 * user + system CPU of a process and its children, ms, with what its exited children used (cutime,
 * cstime): PostgreSQL forks a backend per connection (each in a session of its own, so not in the
 * postmaster's process group) and reaps it when the connection closes.
 */
export function processTreeCpuMsOf(rootPid: number): number | null {
  if (!existsSync('/proc')) return null;
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const fields = statFields(pid);
    // ppid is the 2nd field from `state`.
    if (!fields || (pid !== rootPid && Number(fields[1]) !== rootPid)) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
    if (pid === rootPid) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticksToMs(ticks);
}

/** user + system CPU of each thread of this process, ms by thread id, with its name (empty where /proc is missing). */
export function threadCpuMs(): Map<number, { name: string; ms: number }> {
  const threads = new Map<number, { name: string; ms: number }>();
  if (!existsSync('/proc/self/task')) return threads;
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readStat(`/proc/self/task/${tid}/stat`);
    if (stat) threads.set(Number(tid), { name: stat.name, ms: ticksToMs(Number(stat.fields[11]) + Number(stat.fields[12])) });
  }
  return threads;
}

/** Where a process's CPU went between two `threadCpuMs()` snapshots, ms. */
export interface ThreadCpuSplit {
  /** The main JavaScript thread: the client, activities, the SDK's worker loop and its calls into Core. */
  main: number;
  /**
   * The busiest other Node thread: the SDK's workflow thread of the worker that ran the batch. Node
   * names every thread `node`, so it is told apart by being the busiest; the rest of them (V8's GC
   * and compiler helpers, libuv's pool, an idle worker's workflow thread) are `other`.
   */
  workflowThread: number;
  /** Core, the SDK's Rust side (its tokio runtime and workflow-processing threads). */
  core: number;
  other: number;
}

export function splitThreadCpu(before: Map<number, { name: string; ms: number }>, after: Map<number, { name: string; ms: number }>): ThreadCpuSplit {
  const split: ThreadCpuSplit = { main: 0, workflowThread: 0, core: 0, other: 0 };
  const nodeThreads: number[] = [];
  for (const [tid, { name, ms }] of after) {
    const used = ms - (before.get(tid)?.ms ?? 0);
    if (tid === process.pid) split.main += used;
    else if (name.startsWith('tokio-runtime') || name.startsWith('workflow-proces')) split.core += used;
    else nodeThreads.push(used);
  }
  nodeThreads.sort((a, b) => b - a);
  split.workflowThread = nodeThreads[0] ?? 0;
  split.other = nodeThreads.slice(1).reduce((sum, used) => sum + used, 0);
  return split;
}
