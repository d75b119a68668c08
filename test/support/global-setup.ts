// The test run's one Temporal dev server and workflow bundle, set up once before all test files.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../src/devserver/dev-server';
import { AgentPlugin } from '../../src/worker/agent-plugin';
import { agentWorkflowsPath } from '../../src/worker/workflow-bundle';
import { startTestRunGuard } from './test-run-guard';

/**
 * Starts one real Temporal dev server for the whole test run (unless `TEMPORAL_ADDRESS` points at
 * a cluster) and bundles the workflows once, so each test worker starts in milliseconds.
 */
export default async function globalSetup(): Promise<void> {
  startTestRunGuard();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'agent-tests-'));
  process.env.AGENT_TEST_SCRATCH = scratch;
  if (!process.env.TEMPORAL_ADDRESS) {
    const server: DevServer = await startDevServer({ port: 0, uiPort: null, dbFile: path.join(scratch, 'temporal.db') });
    (globalThis as { agentTestServer?: DevServer }).agentTestServer = server;
    process.env.TEMPORAL_ADDRESS = server.address;
    process.env.TEMPORAL_NAMESPACE = server.namespace;
  }
  const { code } = await bundleWorkflowCode({
    workflowsPath: agentWorkflowsPath(),
    // As every worker's bundle: the plugin shares the agent's modules by all workflows of a worker
    // thread, and compiles the sources for the build's language level.
    plugins: [new AgentPlugin()],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  const bundlePath = path.join(scratch, 'workflow-bundle.js');
  writeFileSync(bundlePath, code);
  process.env.AGENT_WORKFLOW_BUNDLE = bundlePath;
}
