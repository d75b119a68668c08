// The workflow bundle of a user's worker: the test's own workflows that run agents (parent-workflows.ts) with ours, as the plugin bundles them.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { AgentPlugin } from '../../src/worker/agent-plugin';

/** The workflow types of the agent bundle; any other type in the replay corpus is a user's workflow. */
export const AGENT_WORKFLOW_TYPES: readonly string[] = [
  'agentRun',
  'agentThread',
  'agentWorkerTools',
  'agentWorkerAgents',
  'providerLimiter',
  'scheduledThreadPost',
  'a2aPushDelivery',
];

/**
 * The code of that bundle, built once per test run (kept in the run's scratch folder, which jest's
 * global setup makes): `test/run-agent.test.ts` runs workers with it and `test/replay.test.ts`
 * replays users' workflows against it. Never part of the package: the agent bundle stays as it is.
 */
export async function userWorkflowBundle(): Promise<string> {
  const file = path.join(process.env.AGENT_TEST_SCRATCH!, 'user-workflow-bundle.js');
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./parent-workflows'),
    plugins: [new AgentPlugin()],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error },
  });
  // Two test files may build it at once: each writes its own file and renames it into place.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, file);
  return code;
}
