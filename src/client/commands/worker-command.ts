import { resolveTemporalTarget } from '../../connection/temporal-target';
import { loadTools } from '../../worker/load-tools';
import { installRuntimeLogger, startWorker } from '../../worker/start-worker';

/** `worker`: runs an agent worker against TEMPORAL_ADDRESS (or the local dev server) until Ctrl-C. */
export async function workerCommand(options: { tools?: string; taskQueue?: string }): Promise<void> {
  installRuntimeLogger('agent-worker');
  const target = resolveTemporalTarget();
  const tools = loadTools(options.tools);
  const running = await startWorker(target, tools, options.taskQueue);
  console.log(`Worker polling ${target.address} (namespace ${target.namespace}) with tools: ${tools.map((tool) => tool.name).join(', ')}`);
  await running.done;
}
