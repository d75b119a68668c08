// CPU time of other processes (the dev server, the Temporal server, PostgreSQL and its backends) from /proc, for the bench's per-run CPU figures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: clock ticks per second in /proc/<pid>/stat, 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), from `state` on; null if the process is gone. */
function statFields(pid: number): string[] | null {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return null;
  try {
    const stat = readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // exited between the check and the read
  }
}

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
