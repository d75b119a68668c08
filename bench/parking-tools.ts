// Tools module of the parked-memory benches' worker processes: the crash tools, plus a full garbage collection on SIGWINCH.
import { tools } from '../test/support/crash-tools';

/**
 * With `--expose-gc` (NODE_OPTIONS), SIGWINCH collects the worker process's main heap, so the
 * bench reads RSS without garbage V8 has not collected yet (not SIGUSR2: Temporal's runtime shuts
 * the worker down on it). Workflow threads keep their own heaps (the SDK runs workflows in worker
 * threads); the bench's cache-of-10 process has the same, so the difference is the cache's.
 */
process.on('SIGWINCH', () => (globalThis as { gc?: () => void }).gc?.());

export { tools };
