import path from 'node:path';
import { PROJECT_ROOT } from '../../devserver/temporal-cli';
import { ensureLocalServer } from '../../devserver/ensure-local-server';
import { demoTools } from '../../tools/demo-tools';
import { installRuntimeLogger, startWorker } from '../../worker/start-worker';
import { AgentClient } from '../../client/agent-client';
import { loadAgentConfigFile } from '../../config/load-config';
import { followRun, printResult } from './run-command';
import { waitForInterrupt } from './dev-command';

export const DEMO_CONFIG = path.join(PROJECT_ROOT, 'examples', 'weather-agent.yaml');
export const DEMO_TASK = 'What is the weather in Tokyo right now, what is its UTC offset, and how warm is that in Fahrenheit?';

/**
 * `demo` (what `npm start` runs): the real Temporal dev server, a worker, and one agent run of the
 * offline scripted model calling tools in parallel; prints the answer and the run's Web UI link.
 */
export async function demoCommand(options: { keep?: boolean; task?: string; model?: string }): Promise<void> {
  installRuntimeLogger('agent-demo');
  const config = loadAgentConfigFile(DEMO_CONFIG, { model: options.model });
  const server = await ensureLocalServer((line) => console.log(line));
  // Unversioned, as `dev`: the demo's one run needs no rollout.
  const running = await startWorker(server.target, { tools: demoTools, deployment: false });
  const agents = new AgentClient(running.client, { uiUrl: server.target.uiUrl });
  try {
    const run = await agents.startRun({ config, task: options.task ?? DEMO_TASK });
    console.log(`\nStarted run ${run.workflowId} (agent ${config.name}, model ${config.model})\n`);
    const result = await followRun(run, false);
    printResult(result, run.webUiUrl);
    if (options.keep) {
      console.log('\nThe server and worker stay up for the Web UI. Press Ctrl-C to stop.');
      await waitForInterrupt();
    } else if (server.started) {
      console.log('\nThe dev server stops now; the run is kept in its database. `npm start -- --keep`, or');
      console.log('`npm run cli -- dev`, keeps the server up so the link above opens in the Web UI.');
    }
  } finally {
    await running.stop();
    await server.stop();
  }
}
