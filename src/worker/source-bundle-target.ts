// The language level of a workflow bundle made from this repository's TypeScript sources: the build's (ES2022), not the Temporal bundler's ES2017.
import type { BundleOptions } from '@temporalio/worker';

/** The webpack configuration Temporal's bundler hands to `webpackConfigHook`. */
export type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/** tsconfig.json's `target`: what the package's compiled workflows (and so its prebuilt bundle) are written in. */
export const SOURCE_BUNDLE_TARGET = 'es2022';

/**
 * Temporal's bundler compiles `.ts` workflow files with swc for ES2017. There, object spread and
 * rest, and class fields, become helper calls (`_object_spread`, `_define_property`), and the
 * agent workflows spread their state at every step: replaying the throughput bench's run took
 * 1.28 times a bare workflow's CPU from such a bundle and 1.24 times at ES2022 (10 paired rounds,
 * 4% less for the same run). That only happens when workers run from this repository's sources
 * (tests, the demo, the bench); an installed package bundles compiled JavaScript, which swc does
 * not touch.
 *
 * This raises swc's target to the build's in the bundler config, so a bundle made from the sources
 * runs the code users run. It changes no command a workflow makes: ES2017 already has native
 * `async`/`await`, so the order of promise reactions is the same, and the helpers and the native
 * syntax define the same properties in the same order.
 *
 * @example
 * bundleWorkflowCode({ workflowsPath, webpackConfigHook: compileSourcesForTheBuildTarget })
 */
export function compileSourcesForTheBuildTarget(config: WebpackConfig): WebpackConfig {
  const rules = config.module?.rules;
  if (!rules) return config;
  return { ...config, module: { ...config.module, rules: rules.map(withBuildTarget) } };
}

type Rule = NonNullable<NonNullable<WebpackConfig['module']>['rules']>[number];

/** The rule with its swc-loader set to the build target; any other rule as it was. */
function withBuildTarget(rule: Rule): Rule {
  if (!rule || typeof rule !== 'object' || !('use' in rule)) return rule;
  const use = rule.use;
  if (!use || typeof use !== 'object' || Array.isArray(use) || typeof use.loader !== 'string' || !use.loader.includes('swc-loader')) return rule;
  const options = typeof use.options === 'object' && use.options !== null ? use.options : {};
  const jsc = typeof options.jsc === 'object' && options.jsc !== null ? (options.jsc as Record<string, unknown>) : {};
  return { ...rule, use: { ...use, options: { ...options, jsc: { ...jsc, target: SOURCE_BUNDLE_TARGET } } } };
}
