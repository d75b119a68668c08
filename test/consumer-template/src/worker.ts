import { fileURLToPath } from 'node:url';
import { NativeConnection } from '@temporalio/worker';
import { createSupportWorker } from './support-worker.js';

const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const taskQueue = process.env.CONSUMER_TASK_QUEUE ?? 'consumer-support';

const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
const worker = await createSupportWorker({
  connection,
  namespace,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('./workflows.js', import.meta.url)),
});
// Temporal's runtime shuts the worker down on SIGINT and SIGTERM; run() resolves once it has drained.
const running = worker.run();
console.log(`consumer worker polling on ${taskQueue}`);
try {
  await running;
} finally {
  await connection.close();
}
console.log('consumer worker stopped');
