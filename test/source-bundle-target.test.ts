// A workflow bundle made from this repository's sources is compiled for the build's language level (ES2022), as the package's compiled workflows are.
import { describe, expect, it } from '@jest/globals';
import { AgentPlugin } from '../src/worker/agent-plugin';
import { compileSourcesForTheBuildTarget, SOURCE_BUNDLE_TARGET, type WebpackConfig } from '../src/worker/source-bundle-target';
import { agentWorkflowsPath } from '../src/worker/workflow-bundle';
import { userWorkflowBundle } from './support/user-workflow-bundle';

/** The rules Temporal's bundler gives webpack, in their shape: source maps for `.js`, swc for `.ts`. */
function bundlerConfig(): WebpackConfig {
  return {
    module: {
      rules: [
        { test: /\.js$/, enforce: 'pre', use: ['source-map-loader'] },
        {
          test: /\.ts$/,
          exclude: /node_modules/,
          use: {
            loader: '/x/node_modules/swc-loader/index.js',
            options: { sourceMap: true, jsc: { target: 'es2017', parser: { syntax: 'typescript', decorators: true } } },
          },
        },
      ],
    },
  };
}

describe('bundles made from the sources', () => {
  it("raise swc-loader's target to the build's and keep its other options and every other rule", () => {
    const config = compileSourcesForTheBuildTarget(bundlerConfig());
    const [js, ts] = config.module!.rules!;
    expect(js).toEqual(bundlerConfig().module!.rules![0]);
    expect(ts).toMatchObject({
      test: /\.ts$/,
      use: { options: { sourceMap: true, jsc: { target: SOURCE_BUNDLE_TARGET, parser: { syntax: 'typescript', decorators: true } } } },
    });
  });

  it("are made so by the plugin's bundler hook, before the app's own hook (which may change it again)", () => {
    const seen: unknown[] = [];
    const options = new AgentPlugin().configureBundler({
      workflowsPath: agentWorkflowsPath(),
      webpackConfigHook: (config) => {
        seen.push((config.module!.rules![1] as { use: { options: { jsc: { target: string } } } }).use.options.jsc.target);
        return config;
      },
    });
    options.webpackConfigHook!(bundlerConfig());
    expect(seen).toEqual([SOURCE_BUNDLE_TARGET]);
  });

  it('keep object spread, rest and class fields native: no ES2017 helper in a real bundle of the plugin', async () => {
    // The bundle of a user's worker with the plugin: the test's workflows and the agent's, from the sources, through webpack.
    const code = await userWorkflowBundle();
    expect(code).toContain('agentRun');
    for (const helper of ['function _object_spread(', 'function _object_without_properties(', 'function _define_property('])
      expect(code).not.toContain(helper);
  });
});
