// Bundles "build 2" of the agent workflows for the rolling-upgrade test: AgentPlugin's bundle, with the workflows' model-calls module swapped for one that adds an activity per step.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import webpack from 'webpack';
import { AgentPlugin } from '../../src/worker/agent-plugin';
import { agentWorkflowsPath } from '../../src/worker/workflow-bundle';
import { BUILD_TWO_MARK } from './build-two/mark';

const BUILD_TWO_MODULE = path.resolve(__dirname, 'build-two', 'model-calls.ts');

/**
 * Writes build 2's bundle to `file` (webpack: some tens of seconds) and returns its path. Every
 * import of `model-calls` by the agent workflows resolves to build-two/model-calls.ts, which
 * re-exports build 1's and wraps its `executorStep`; its own import of build 1's module is left alone.
 */
export async function bundleBuildTwo(file: string): Promise<string> {
  const swap = new webpack.NormalModuleReplacementPlugin(
    /[\\/]model-calls(\.ts)?$/,
    (resource: { request: string; contextInfo?: { issuer?: string } }) => {
      if (resource.contextInfo?.issuer !== BUILD_TWO_MODULE) resource.request = BUILD_TWO_MODULE;
    },
  );
  const { code } = await bundleWorkflowCode({
    workflowsPath: agentWorkflowsPath(),
    plugins: [new AgentPlugin()],
    webpackConfigHook: (config) => ({ ...config, plugins: [...(config.plugins ?? []), swap] }),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  if (!code.includes(BUILD_TWO_MARK)) throw new Error('build 2 bundle: the model-calls swap did not apply');
  writeFileSync(file, code);
  return file;
}
