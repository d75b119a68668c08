// Tools module of the parked-memory benches' worker processes: the crash tools, plus a full garbage collection on SIGWINCH.
import { writeFileSync } from 'node:fs';
import { tools } from '../test/support/crash-tools';

/**
 * With `--expose-gc` (NODE_OPTIONS), SIGWINCH collects the worker process's main heap, so the
 * bench reads memory without garbage V8 has not collected yet (not SIGUSR2: Temporal's runtime
 * shuts the worker down on it). Then, with PARKING_MEMORY_FILE set, it writes
 * `process.memoryUsage()` there. The collection reaches the workflows' heap only when they run on
 * the main thread (TEMPORAL_DEBUG=1, the SDK's debug mode); in their usual worker thread it does not.
 */
process.on('SIGWINCH', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const file = process.env.PARKING_MEMORY_FILE;
  if (file) writeFileSync(file, JSON.stringify(process.memoryUsage()));
});

export { tools };
