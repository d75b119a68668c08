import { describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { WorkerDeployments } from '../src/client/worker-deployments';
import { resolveTemporalTarget } from '../src/connection/temporal-target';
import { DeploymentError, ErrorCode } from '../src/protocol/errors';
import { AgentPlugin } from '../src/worker/agent-plugin';
import {
  agentWorkerDeploymentOptions,
  checkDeploymentVersion,
  deploymentVersionFromEnvironment,
  workerDeploymentFor,
} from '../src/worker/deployment-options';
import { runCli } from './support/cli-process';

/** The error `run` throws, for its code and field. */
function thrown(run: () => unknown): { code: string; field: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof DeploymentError) return { code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('a worker deployment version', () => {
  it('comes from both variables or neither, and a half-set one names the missing variable', () => {
    expect(deploymentVersionFromEnvironment({})).toBeUndefined();
    expect(deploymentVersionFromEnvironment({ AGENT_DEPLOYMENT_NAME: '', AGENT_BUILD_ID: '' })).toBeUndefined();
    expect(deploymentVersionFromEnvironment({ AGENT_DEPLOYMENT_NAME: 'agents', AGENT_BUILD_ID: '1.4.0-3f2c1ab' })).toEqual({
      deploymentName: 'agents',
      buildId: '1.4.0-3f2c1ab',
    });
    expect(thrown(() => deploymentVersionFromEnvironment({ AGENT_BUILD_ID: '7' }))).toMatchObject({
      code: ErrorCode.deploymentOptionsInvalid,
      field: 'AGENT_DEPLOYMENT_NAME',
    });
    expect(thrown(() => deploymentVersionFromEnvironment({ AGENT_DEPLOYMENT_NAME: 'agents' }))).toMatchObject({ field: 'AGENT_BUILD_ID' });
  });

  it('refuses names Temporal would refuse, naming the field', () => {
    const names = { deploymentName: '--deployment-name', buildId: '--build-id' };
    expect(thrown(() => checkDeploymentVersion({ deploymentName: 'agents.prod', buildId: '1' }, names))).toMatchObject({
      field: '--deployment-name',
    });
    expect(thrown(() => checkDeploymentVersion({ deploymentName: 'agents', buildId: '__1' }, names))).toMatchObject({ field: '--build-id' });
    expect(thrown(() => checkDeploymentVersion({ deploymentName: 'agents', buildId: 'x'.repeat(109) }, names))).toMatchObject({
      field: '--build-id',
    });
    expect(thrown(() => new AgentPlugin({ deployment: { deploymentName: ' ', buildId: '1' } }))).toMatchObject({
      field: 'deployment.deploymentName',
    });
  });

  it('pins workflows by default, and refuses a worker default that would auto-upgrade runs', () => {
    const version = { deploymentName: 'agents', buildId: '2' };
    expect(workerDeploymentFor(version, undefined)).toEqual({ version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' });
    expect(workerDeploymentFor(undefined, undefined)).toBeUndefined();
    expect(
      thrown(() => workerDeploymentFor(undefined, { version, useWorkerVersioning: true, defaultVersioningBehavior: 'AUTO_UPGRADE' })),
    ).toMatchObject({ field: 'workerDeploymentOptions.defaultVersioningBehavior' });
    expect(thrown(() => workerDeploymentFor(version, agentWorkerDeploymentOptions(version)))).toMatchObject({ field: 'deployment' });
  });
});

describe('the deployment commands', () => {
  it('stop a worker with half a version before it connects, naming the variable (exit 2)', async () => {
    const result = await runCli(['worker', '--no-demo-tools'], { AGENT_BUILD_ID: '7', AGENT_DEPLOYMENT_NAME: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('AGENT_DEPLOYMENT_NAME');
  }, 60_000);

  it('name an unknown deployment, and refuse a ramp outside 0-100 before sending it', async () => {
    const target = resolveTemporalTarget();
    const client = new Client({ connection: await Connection.connect(target.connectionOptions), namespace: target.namespace });
    try {
      const deployments = new WorkerDeployments(client);
      await expect(deployments.describe('no-such-deployment')).rejects.toMatchObject({ code: ErrorCode.deploymentNotFound, field: 'deploymentName' });
      await expect(deployments.setRamping('no-such-deployment', '1', 120)).rejects.toMatchObject({
        code: ErrorCode.deploymentOptionsInvalid,
        field: 'percentage',
      });
      const status = await runCli(['deployment', 'status', 'no-such-deployment']);
      expect(status.code).toBe(2);
      expect(status.stderr).toContain("No worker deployment 'no-such-deployment'");
    } finally {
      await client.connection.close();
    }
  }, 60_000);
});
