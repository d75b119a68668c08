import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';

/**
 * Modules a workflow imports are initialised once per workflow a worker starts or replays (the SDK
 * gives each workflow its own module state), unless the bundle preloads them into the state every
 * workflow of the thread shares. The agent's modules are preloaded, and the bundle holds nothing
 * heavy the loop never needs: building zod and the config schemas in each workflow cost about 20 ms
 * of workflow-thread CPU per run under load (docs/performance.md). The bundle checked is the one
 * jest's global setup built, the same way a worker's is built.
 */
describe('the agent workflow bundle', () => {
  const code = readFileSync(process.env.AGENT_WORKFLOW_BUNDLE!, 'utf8');
  const bundledPackages = new Set([...code.matchAll(/"\.\/node_modules\/((?:@[^/"]+\/)?[^/"]+)\//g)].map((match) => match[1]));

  it('holds only the Temporal workflow runtime, its small dependencies, and the small pure libraries the loop uses', () => {
    // safe-stable-stringify: the canonical JSON of a tool call's arguments, for loop detection;
    // @cfworker/json-schema and picomatch: tool policies' argument conditions and name patterns.
    expect([...bundledPackages].sort()).toEqual([
      '@cfworker/json-schema',
      '@temporalio/common',
      '@temporalio/workflow',
      'long',
      'ms',
      'nexus-rpc',
      'picomatch',
      'safe-stable-stringify',
    ]);
  });

  it('does not build the agent config schemas (the client and the worker validate configs)', () => {
    expect(code).not.toContain('./src/config/agent-config.ts');
    expect(code).toContain('./src/config/agent-config-rules.ts');
  });

  it('loads the agent workflow modules once per worker thread (preloaded), not once per workflow', () => {
    expect(code).toMatch(/function preloadModules\(\) \{\s*__webpack_require__\([^)]*"\.\/src\/workflows\/index\.ts"\);/);
  });
});
