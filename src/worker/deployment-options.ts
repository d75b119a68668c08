// A worker's Worker Deployment Version (deployment name + build id): validated, read from the environment, turned into Temporal's worker options.
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { DeploymentError, ErrorCode } from '../protocol/errors';

/**
 * The Worker Deployment Version a worker polls as: `deploymentName` groups the builds of one
 * service, `buildId` names this build (e.g. the image's package version and git sha). Temporal
 * pins each agent run to the build that started it (docs/deployment.md).
 */
export type AgentDeploymentVersion = WorkerDeploymentVersion;

/** The environment variables `createAgentWorker` and the CLI's `worker` read the version from. */
export const DEPLOYMENT_NAME_VARIABLE = 'AGENT_DEPLOYMENT_NAME';
export const BUILD_ID_VARIABLE = 'AGENT_BUILD_ID';

/**
 * The longest deployment name or build id: the server builds a workflow id of both (39 characters
 * of its own) within its id limit, 255 on a cluster on PostgreSQL.
 */
const MAX_FIELD_LENGTH = 108;

/** How the two settings were given, named in errors: options, flags or variables. */
export interface DeploymentFieldNames {
  deploymentName: string;
  buildId: string;
}

/**
 * Both settings or neither: the version, or `undefined` (an unversioned worker).
 * @throws DeploymentError (`DeploymentOptionsInvalid`) naming the setting that is missing or
 * unusable (empty, too long, a deployment name with `.` or `:`, a value starting with `__`).
 * @example
 * checkDeploymentVersion({ deploymentName: 'agents', buildId: '1.4.0-3f2c1ab' }, { deploymentName: '--deployment-name', buildId: '--build-id' });
 */
export function checkDeploymentVersion(
  given: { deploymentName?: string | undefined; buildId?: string | undefined },
  names: DeploymentFieldNames,
): AgentDeploymentVersion | undefined {
  const { deploymentName, buildId } = given;
  if (deploymentName === undefined && buildId === undefined) return undefined;
  if (deploymentName === undefined || buildId === undefined) {
    const [missing, present] = deploymentName === undefined ? [names.deploymentName, names.buildId] : [names.buildId, names.deploymentName];
    throw invalid(missing, `${present} is set but ${missing} is not: give both (a versioned worker) or neither`);
  }
  checkField(names.deploymentName, deploymentName);
  checkField(names.buildId, buildId);
  if (/[.:]/.test(deploymentName))
    throw invalid(names.deploymentName, `${names.deploymentName} '${deploymentName}' contains '.' or ':', which Temporal keeps for version strings`);
  return { deploymentName, buildId };
}

/**
 * The version from `AGENT_DEPLOYMENT_NAME` and `AGENT_BUILD_ID` (empty counts as unset), or
 * `undefined` when neither is set.
 * @throws DeploymentError naming the variable, as `checkDeploymentVersion`.
 * @example
 * import { AgentPlugin, deploymentVersionFromEnvironment } from 'durable-agents/worker';
 *
 * // AGENT_DEPLOYMENT_NAME=agents AGENT_BUILD_ID=1.4.0-3f2c1ab node worker.js
 * const plugin = new AgentPlugin({ tools, deployment: deploymentVersionFromEnvironment() });
 */
export function deploymentVersionFromEnvironment(environment: NodeJS.ProcessEnv = process.env): AgentDeploymentVersion | undefined {
  return checkDeploymentVersion(
    { deploymentName: environment[DEPLOYMENT_NAME_VARIABLE] || undefined, buildId: environment[BUILD_ID_VARIABLE] || undefined },
    { deploymentName: DEPLOYMENT_NAME_VARIABLE, buildId: BUILD_ID_VARIABLE },
  );
}

/**
 * Temporal's worker options for a versioned agent worker. Workflows are pinned by default: an
 * agent run replays only on the code that wrote its history, and the long-lived workflows move by
 * continue-as-new at points they choose (docs/deployment.md).
 * @example
 * import { Worker } from '@temporalio/worker';
 * import { AgentPlugin, agentWorkerDeploymentOptions } from 'durable-agents/worker';
 *
 * // Your own versioned worker with agents in it: the same options AgentPlugin's `deployment` sets.
 * const worker = await Worker.create({
 *   connection, taskQueue: 'orders', workflowsPath: require.resolve('./workflows'),
 *   workerDeploymentOptions: agentWorkerDeploymentOptions({ deploymentName: 'orders', buildId: process.env.BUILD_ID! }),
 *   plugins: [new AgentPlugin({ tools })],
 * });
 */
export function agentWorkerDeploymentOptions(version: AgentDeploymentVersion): WorkerDeploymentOptions {
  return {
    version: { deploymentName: version.deploymentName, buildId: version.buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  };
}

function checkField(name: string, value: string): void {
  if (value.trim() === '') throw invalid(name, `${name} is empty`);
  if (value.length > MAX_FIELD_LENGTH) throw invalid(name, `${name} is ${value.length} characters long; at most ${MAX_FIELD_LENGTH}`);
  if (value.startsWith('__')) throw invalid(name, `${name} '${value}' starts with '__', which Temporal keeps for itself`);
}

function invalid(field: string, message: string): DeploymentError {
  return new DeploymentError(ErrorCode.deploymentOptionsInvalid, field, message);
}

/**
 * The worker's deployment options with the plugin's `deployment`: the worker's own
 * `workerDeploymentOptions` when it has them (they must pin by default), else the plugin's.
 * @throws DeploymentError when both are given, or the worker's default behavior is `AUTO_UPGRADE`
 * (a run's history would replay on another build's code at its next task).
 */
export function workerDeploymentFor(
  plugin: AgentDeploymentVersion | undefined,
  worker: WorkerDeploymentOptions | undefined,
): WorkerDeploymentOptions | undefined {
  if (plugin && worker) {
    throw invalid('deployment', "AgentPlugin's `deployment` and the worker's `workerDeploymentOptions` are both set: give the version in one place");
  }
  if (worker?.useWorkerVersioning && worker.defaultVersioningBehavior !== 'PINNED') {
    throw invalid(
      'workerDeploymentOptions.defaultVersioningBehavior',
      "the agent workflows need workerDeploymentOptions.defaultVersioningBehavior 'PINNED' (an AUTO_UPGRADE run would replay its history on a new build's code); annotate your own workflows with setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }) instead",
    );
  }
  return worker ?? (plugin ? agentWorkerDeploymentOptions(plugin) : undefined);
}
