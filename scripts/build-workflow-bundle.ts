/**
 * Part of `npm run build`: bundles the compiled agent workflows (dist/workflows) once, so workers
 * of the installed package start without running webpack (dist/workflow-bundle.js, plus the
 * @temporalio/workflow version it was made with).
 */
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { writePrebuiltBundle } from '../src/worker/workflow-bundle';

const DIST = path.resolve(__dirname, '..', 'dist');

async function main(): Promise<void> {
  const started = Date.now();
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.join(DIST, 'workflows', 'index.js'),
    preloadModules: [path.join(DIST, 'workflows', 'index.js')],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  const { bundle, bytes } = writePrebuiltBundle(code, DIST);
  console.log(
    `Workflow bundle: ${path.relative(process.cwd(), bundle)} (${(bytes / 1024 / 1024).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
