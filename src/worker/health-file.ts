import { rmSync, writeFileSync } from 'node:fs';
import type { Worker } from '@temporalio/worker';

/**
 * A readiness signal for container health checks: while the worker runs and both its pollers poll,
 * `file` is rewritten every `intervalMs` with the worker's status (JSON: run state, in-flight
 * tasks, pid); when it stops, the file is removed. A check then only reads the file's age:
 * `node -e "process.exit(Date.now() - require('fs').statSync(FILE).mtimeMs < 30000 ? 0 : 1)"`.
 * Returns a function that stops writing and removes the file.
 */
export function keepHealthFile(worker: Pick<Worker, 'getStatus'>, file: string, intervalMs = 5_000): () => void {
  const write = () => {
    const status = worker.getStatus();
    const polling = status.runState === 'RUNNING' && status.workflowPollerState === 'POLLING' && status.activityPollerState === 'POLLING';
    if (polling) writeFileSync(file, `${JSON.stringify({ ...status, pid: process.pid, at: new Date().toISOString() })}\n`);
    else rmSync(file, { force: true });
  };
  write();
  const timer = setInterval(write, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    rmSync(file, { force: true });
  };
}
