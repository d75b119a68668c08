import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devserver/temporal-cli';
import { ensureLocalServer } from '../../devserver/ensure-local-server';
import { demoTools } from '../../tools/demo-tools';
import { installRuntimeLogger, startWorker } from '../../worker/start-worker';
import { AgentClient } from '../../client/agent-client';
import { loadAgentConfigFile } from '../../config/load-config';
import { startConsole, type RunningConsole } from '../../console/console-server';
import { runPath } from '../../console/pages/inbox-page';
import { decideDemoCall, describeCall, type DemoDecision } from '../demo-approval';
import { followRun, printResult, webUiLine } from './run-command';
import { waitForInterrupt } from './dev-command';

export const DEMO_CONFIG = path.join(PROJECT_ROOT, 'examples', 'forecast-agent.yaml');
export const DEMO_TASK = 'What is the weather in Tokyo right now, what is its UTC offset, and how warm is that in Fahrenheit? Email it to the team.';
/** The console's usual port; a busy one gives way to a free port. */
const DEMO_CONSOLE_PORT = 4300;

export interface DemoOptions {
  keep?: boolean;
  task?: string;
  model?: string;
  /** Approve or reject the gated call without asking (default: ask at a terminal, approve without one). */
  approve?: boolean;
  reject?: boolean;
  /** false (`--no-console`): no console beside the run. */
  console?: boolean;
}

/**
 * `demo` (what `npm start` runs): the real Temporal dev server, a worker and the console, and one
 * run of the offline scripted model that calls tools in parallel, then a gated tool a person
 * approves (at the terminal, in the console, or, without a terminal, the demo approves and says so).
 * Prints the answer, where to watch the run, and how to chat with the agent.
 */
export async function demoCommand(options: DemoOptions): Promise<void> {
  installRuntimeLogger('agent-demo');
  const config = loadAgentConfigFile(DEMO_CONFIG, { model: options.model });
  const decision: DemoDecision = options.reject ? 'reject' : options.approve || !process.stdin.isTTY ? 'approve' : 'ask';
  const server = await ensureLocalServer((line) => console.log(line));
  // Unversioned, as `dev`: the demo's one run needs no rollout.
  const running = await startWorker(server.target, { tools: demoTools, deployment: false });
  const agents = new AgentClient(running.client, { uiUrl: server.target.uiUrl });
  const consoleServer = options.console === false ? null : await startDemoConsole(agents);
  try {
    const run = await agents.startRun({ config, task: options.task ?? DEMO_TASK });
    console.log(`\nStarted run ${run.workflowId} (agent ${config.name}, model ${config.model})`);
    console.log(`Task: ${options.task ?? DEMO_TASK}`);
    if (consoleServer) console.log(`Console: ${consoleServer.url}${runPath(run.workflowId)}  (the run as a conversation, live)`);
    console.log(`${webUiLine(run.webUiUrl)}  (the workflow's history)\n`);
    const descriptions = new Map(demoTools.map((tool) => [tool.name, tool.description]));
    const result = await followRun(run, false, process.stdout, async (event) => {
      if (event.type !== 'approval-requested') return false;
      console.log(`\nThe agent wants to call a tool that needs a person's approval (hitl_tools in ${path.relative(process.cwd(), DEMO_CONFIG)}):`);
      console.log(describeCall(event.request, descriptions.get(event.request.toolName)));
      if (consoleServer) console.log(`  You can also decide in the console: ${consoleServer.url}/`);
      await decideDemoCall(run, event.request, decision, {
        input: process.stdin,
        output: process.stdout,
        decidedBy: `local:${os.userInfo().username}`,
      });
      return true; // decided: no "waiting for approval" spinner after it
    });
    printResult(result, run.webUiUrl);
    printNextSteps(Boolean(options.keep));
    if (options.keep) {
      console.log('\nThe server, worker and console stay up. Press Ctrl-C to stop.');
      await waitForInterrupt();
    } else if (server.started) {
      console.log('\nThe dev server stops now; the run is kept in its database. `npm start -- --keep` keeps it up,');
      console.log('with the worker and the console, so the links above open.');
    }
  } finally {
    await consoleServer?.close();
    await running.stop();
    await server.stop();
  }
}

/** The console beside the demo's run, on its usual port when free. */
async function startDemoConsole(agents: AgentClient): Promise<RunningConsole> {
  return startConsole({ agents, port: DEMO_CONSOLE_PORT, pollMs: 1_000 }).catch(() => startConsole({ agents, port: 0, pollMs: 1_000 }));
}

/** How to go on from the demo: chat with the agent, run it with a real model. */
function printNextSteps(kept: boolean): void {
  const config = path.relative(process.cwd(), DEMO_CONFIG) || DEMO_CONFIG;
  console.log('\nNext:');
  console.log(`  Chat with the agent (a thread; it asks you before each email):`);
  if (!kept) console.log('    keep a server and worker up in one terminal: npm start -- --keep   (or: npm run cli -- dev)');
  console.log(`    then in another: npm run cli -- chat -c ${config}`);
  console.log('    (the scripted model answers with its one script; add -m openai:gpt-4o-mini, with OPENAI_API_KEY set, for a real conversation)');
  console.log(`  The approvals inbox and every run:  npm run cli -- console   (http://127.0.0.1:${DEMO_CONSOLE_PORT})`);
  console.log(`  A real model:  npm start -- --model openai:gpt-4o-mini   (with OPENAI_API_KEY set)`);
}
