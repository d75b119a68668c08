import { ensureLocalServer } from '../../devserver/ensure-local-server';
import { loadTools, loadWorkerExtensions } from '../../worker/load-tools';
import { installRuntimeLogger, startWorker } from '../../worker/start-worker';

const DEV_SHUTDOWN_GRACE_MS = 5_000;

/** `dev`: the embedded Temporal dev server and a worker in one process, until Ctrl-C. */
export async function devCommand(options: { tools?: string; demoTools?: boolean }): Promise<void> {
  installRuntimeLogger('agent-dev');
  const server = await ensureLocalServer((line) => console.log(line));
  // Ctrl-C should stop a development loop promptly: a tool still running after a few seconds is
  // cancelled and runs again when `dev` starts next (the server keeps the run).
  const running = await startWorker(server.target, {
    tools: await loadTools({ modulePath: options.tools, demoTools: options.demoTools }),
    extensions: await loadWorkerExtensions({ modulePath: options.tools }),
    shutdownGraceMs: DEV_SHUTDOWN_GRACE_MS,
    // A development loop runs the code it has: no Worker Versioning (a versioned worker would get
    // no run until a build is made current), whatever AGENT_BUILD_ID the shell exports.
    deployment: false,
  });
  console.log(`Worker running. Web UI: ${server.target.uiUrl ?? '(unknown)'}  Press Ctrl-C to stop.`);
  await waitForInterrupt();
  console.log('Stopping...');
  await running.stop();
  await server.stop();
}

/** Resolves on SIGINT / SIGTERM (the Temporal worker drains on the same signals). */
export function waitForInterrupt(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
