import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';

/**
 * Every module the agent workflow imports is initialised again for each workflow a worker starts
 * or replays (the SDK gives each workflow its own module state). Building zod schemas there cost
 * about 20 ms of workflow-thread CPU per run under load (docs/performance.md), so the bundle must
 * not contain zod or anything else heavy that the loop never needs. The bundle checked is the one
 * jest's global setup built from src/workflows/index.ts.
 */
describe('the agent workflow bundle', () => {
  const code = readFileSync(process.env.AGENT_WORKFLOW_BUNDLE!, 'utf8');
  const bundledPackages = new Set([...code.matchAll(/"\.\/node_modules\/((?:@[^/"]+\/)?[^/"]+)\//g)].map((match) => match[1]));

  it('holds only the Temporal workflow runtime and its small dependencies', () => {
    expect([...bundledPackages].sort()).toEqual(['@temporalio/common', '@temporalio/workflow', 'long', 'ms', 'nexus-rpc']);
  });

  it('does not build the agent config schemas (the client and the worker validate configs)', () => {
    expect(code).not.toContain('./src/shared/agent-config.ts');
    expect(code).toContain('./src/shared/agent-config-rules.ts');
  });
});
