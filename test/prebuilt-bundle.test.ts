// When a worker uses the workflow bundle prebuilt into the package, and what it logs when it cannot.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, jest } from '@jest/globals';
import { Runtime } from '@temporalio/worker';
import { AgentPlugin } from '../src/worker/agent-plugin';
import { agentWorkflowsPath, prebuiltBundle, type PrebuiltBundleInfo } from '../src/worker/workflow-bundle';

const folder = mkdtempSync(path.join(os.tmpdir(), 'prebuilt-bundle-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A prebuilt bundle's two files as the package build writes them. */
function builtWith(info: PrebuiltBundleInfo): { bundle: string; info: string } {
  const files = { bundle: path.join(folder, 'workflow-bundle.js'), info: path.join(folder, 'workflow-bundle.json') };
  writeFileSync(files.bundle, '// a bundle');
  writeFileSync(files.info, JSON.stringify(info));
  return files;
}

describe('the prebuilt workflow bundle', () => {
  it('serves any app whose @temporalio/worker made it, whatever its @temporalio/workflow (the bundle has its own copy)', () => {
    const files = builtWith({ temporalWorkerVersion: '1.24.0', temporalWorkflowVersion: '1.24.0' });
    expect(prebuiltBundle({}, files, '1.24.0')).toEqual({ codePath: files.bundle });
  });

  it('is refused, naming both versions and what to install, on another @temporalio/worker (no promise across versions)', () => {
    const files = builtWith({ temporalWorkerVersion: '1.24.0', temporalWorkflowVersion: '1.24.0' });
    const decision = prebuiltBundle({}, files, '1.24.3');
    expect(decision).toEqual({ reason: expect.stringContaining('made by @temporalio/worker 1.24.0 and this app has 1.24.3') });
    expect(decision).toEqual({ reason: expect.stringContaining('install @temporalio/worker@1.24.0') });
  });

  it('is refused when the worker sets what only a bundle can carry: workflow interceptors, converter paths', () => {
    const files = builtWith({ temporalWorkerVersion: '1.24.0', temporalWorkflowVersion: '1.24.0' });
    const decision = prebuiltBundle(
      { interceptors: { workflowModules: ['/app/interceptors.js'] }, dataConverter: { payloadConverterPath: '/app/converter.js' } },
      files,
      '1.24.0',
    );
    expect(decision).toEqual({ reason: expect.stringContaining('interceptors.workflowModules, dataConverter.payloadConverterPath') });
  });

  it('is absent when running from the sources', () => {
    expect(prebuiltBundle({}, { bundle: path.join(folder, 'none.js'), info: path.join(folder, 'none.json') }, '1.24.0')).toEqual({
      reason: 'there is no prebuilt bundle (running from the sources)',
      fromSources: true,
    });
  });
});

describe('a worker made with AgentPlugin and no workflows of its own', () => {
  const testBundle = process.env.AGENT_WORKFLOW_BUNDLE;
  afterEach(() => {
    process.env.AGENT_WORKFLOW_BUNDLE = testBundle;
    jest.restoreAllMocks();
  });

  it('bundles the agent workflows at start when there is no prebuilt bundle, and says why in the worker log', () => {
    delete process.env.AGENT_WORKFLOW_BUNDLE;
    const logger = Runtime.instance().logger;
    const info = jest.spyOn(logger, 'info');
    const options = new AgentPlugin().configureReplayWorker({});
    expect(options).toMatchObject({ workflowsPath: agentWorkflowsPath() });
    expect(options).not.toHaveProperty('workflowBundle');
    expect(info).toHaveBeenCalledWith(
      expect.stringContaining(
        'bundling the agent workflows now (webpack, some seconds), not the prebuilt bundle: there is no prebuilt bundle (running from the sources)',
      ),
    );
  });
});
