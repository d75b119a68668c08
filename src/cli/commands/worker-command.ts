import { resolveTemporalTarget } from '../../connection/temporal-target';
import { keepHealthFile } from '../../worker/health-file';
import { loadTools } from '../../worker/load-tools';
import { installRuntimeLogger, startWorker } from '../../worker/start-worker';

export interface WorkerCommandOptions {
  tools?: string;
  taskQueue?: string;
  /** false with `--no-demo-tools`. */
  demoTools?: boolean;
  /** `--setup`: register the search attributes before polling. */
  setup?: boolean;
  /** `--health-file` (or AGENT_WORKER_HEALTH_FILE): kept fresh while the worker polls. */
  healthFile?: string;
}

/** `worker`: runs an agent worker against TEMPORAL_ADDRESS (or the local dev server) until Ctrl-C. */
export async function workerCommand(options: WorkerCommandOptions): Promise<void> {
  installRuntimeLogger('agent-worker');
  const target = resolveTemporalTarget();
  const tools = await loadTools({ modulePath: options.tools, demoTools: options.demoTools });
  const running = await startWorker(target, { tools, taskQueue: options.taskQueue, registerSearchAttributes: options.setup });
  const healthFile = options.healthFile ?? process.env.AGENT_WORKER_HEALTH_FILE;
  // The pollers start with run(); the first write comes once they poll.
  const stopHealth = healthFile ? keepHealthFile(running.worker, healthFile) : () => {};
  console.log(`Worker polling ${target.address} (namespace ${target.namespace}) with tools: ${tools.map((tool) => tool.name).join(', ') || 'none'}`);
  try {
    await running.done;
  } finally {
    stopHealth();
  }
}
