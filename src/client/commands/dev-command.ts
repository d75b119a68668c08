import { ensureLocalServer } from '../../devserver/ensure-local-server';
import { startLocalCodecServer } from '../../codec/codec-server';
import { LOCAL_DEV_UI_URL } from '../../connection/temporal-target';
import { loadTools } from '../../worker/load-tools';
import { installRuntimeLogger, startWorker } from '../../worker/start-worker';

/** `dev`: the embedded Temporal dev server and a worker in one process, until Ctrl-C. */
export async function devCommand(options: { tools?: string }): Promise<void> {
  installRuntimeLogger('agent-dev');
  const codecServer = await startLocalCodecServer(LOCAL_DEV_UI_URL);
  if (codecServer) console.log(`Payloads are encrypted; the Web UI decodes them through ${codecServer.url}`);
  const server = await ensureLocalServer((line) => console.log(line), { uiCodecEndpoint: codecServer?.url });
  const running = await startWorker(server.target, loadTools(options.tools));
  console.log(`Worker running. Web UI: ${server.target.uiUrl ?? '(unknown)'}  Press Ctrl-C to stop.`);
  await waitForInterrupt();
  console.log('Stopping...');
  await running.stop();
  await server.stop();
  await codecServer?.close();
}

/** Resolves on SIGINT / SIGTERM (the Temporal worker drains on the same signals). */
export function waitForInterrupt(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
