import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { locateTemporalCli } from '../src/devserver/temporal-cli';
import { WireName } from '../src/protocol/wire-names';
import { runCli } from './support/cli-process';
import { createTestEnvironment, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * What a newcomer sees when something went wrong, through the real CLI and Temporal's own CLI on
 * the test run's server: every user error exits 2 naming what to fix, a failed run says why.
 */
let env: TestEnvironment;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'cli-diagnostics-'));
  env = await createTestEnvironment({
    tools: createTestTools().tools,
    scripts: {
      authFails: { replies: [{ error: { code: 'ModelAuthFailed', message: 'invalid x-api-key' } }] },
      greeter: { replies: [{ text: 'Hello.' }] },
    },
  });
});

afterAll(async () => {
  await env?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('CLI diagnostics', () => {
  it('refuses a tools module that throws while it loads, naming the file and the error (exit 2)', async () => {
    const tools = path.join(folder, 'tools.mjs');
    writeFileSync(tools, "export const tools = [];\nthrow new Error('DATABASE_URL is not set');\n");
    const result = await runCli(['worker', '--tools', tools, '--task-queue', `unused-${Date.now()}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Tools module ${tools} could not be loaded: Error: DATABASE_URL is not set`);
    expect(result.stderr).toContain('tools.mjs:2');
  });

  it('refuses a decision for a run that does not exist (exit 2, RunNotFound)', async () => {
    const result = await runCli(['approve', 'no-such-run-7', 'step-1.call-1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("No running run 'no-such-run-7'");
    await expect(env.agents.getRun('no-such-run-7').approve('step-1.call-1')).rejects.toMatchObject({ code: 'RunNotFound' });
  });

  it("gives a failed run's reason and error type in `status` and `history`", async () => {
    const run = await env.agents.startRun({ config: { name: 'broken', model: 'scripted:authFails' }, task: 'Fail' });
    await expect(run.result()).rejects.toThrow();
    const human = await runCli(['status', run.workflowId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Run ${run.workflowId}: FAILED, phase failed, step 1 of 10`);
    expect(human.stdout).toContain('Failed (ModelAuthFailed): Model step step-1.model (scripted:authFails) failed: invalid x-api-key');
    const json = await runCli(['status', run.workflowId, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      execution: 'FAILED',
      failure: { type: 'ModelAuthFailed', message: expect.stringContaining('invalid x-api-key') },
    });
    const history = await runCli(['history', run.workflowId]);
    expect(history.stdout).toContain('failed (ModelAuthFailed): Model step step-1.model (scripted:authFails) failed: invalid x-api-key');
  });

  it('shows a signal payload as sent (null is not {}) and says the run ignored it, and why', async () => {
    const run = await env.agents.startRun({ config: { name: 'greeter', model: 'scripted:greeter' }, task: 'Hi' });
    await run.workflow.signal(WireName.approvalSignal, null);
    await run.result();
    const history = await runCli(['history', run.workflowId]);
    expect(history.stdout).toContain(
      'signal approval: null\n              ✗ ignored by the run: a decision must be an object with approvalId and decision, not null',
    );
  });

  it("shows the run's current details in `temporal workflow metadata`, as docs/runs.md says", async () => {
    const run = await env.agents.startRun({ config: { name: 'greeter', model: 'scripted:greeter' }, task: 'Hi' });
    await run.result();
    const target = resolveTemporalTarget();
    const { stdout } = await promisify(execFile)(locateTemporalCli()!, [
      'workflow',
      'metadata',
      '--address',
      target.address,
      '--namespace',
      target.namespace,
      '-w',
      run.workflowId,
    ]);
    expect(stdout).toMatch(/Current Details:\s+completed: completed/);
  });
});
