// The operator's side of Worker Deployment Versioning: roll a build out or ramp it, see what each build still holds, wake the long-lived executions left on old builds, and tell when a build can retire.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { grpcCode } from '../connection/ensure-namespace';
import { checkVersionSignal, DEPLOYMENT_VERSION_ATTRIBUTE, deploymentVersionKey, LONG_LIVED_WORKFLOW_TYPES } from '../protocol/deployment-versions';
import { DeploymentError, ErrorCode } from '../protocol/errors';
import { AgentStatusAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import { checkDeploymentVersion } from '../worker/deployment-options';

/** gRPC status NOT_FOUND. */
const NOT_FOUND = 5;

/** One build of a deployment, as the server describes it. */
export interface DeploymentBuild {
  buildId: string;
  /** `current`, `ramping`, `draining` (pinned executions may remain), `drained`, `inactive`: the server's view. */
  status: string;
  /** The ramp percentage when it is the ramping build. */
  rampPercentage?: number;
}

/** A deployment's builds and which one new executions go to. */
export interface DeploymentDescription {
  deploymentName: string;
  currentBuildId: string | null;
  rampingBuildId: string | null;
  rampPercentage: number;
  builds: DeploymentBuild[];
  /** Whether the server is still passing a routing change (a new current or ramping build) to the deployment's task queues. */
  routingPending: boolean;
}

/** The open executions a build still holds: by workflow type, and the runs among them that wait on an approval. */
export interface BuildHoldings {
  buildId: string;
  /** Open executions whose last workflow task ran on this build, by workflow type (`agentRun`, `agentThread`, …). */
  byType: Record<string, number>;
  total: number;
  /** Open executions of the build whose `AgentStatus` is `awaiting_approval`. */
  awaitingApproval: number;
  /** Whether its workers can stop: it holds nothing and new executions no longer go to it. */
  retirable: boolean;
  /** Why it cannot retire yet (or `null`). */
  blockedBy: string | null;
}

/**
 * Rolls builds of a Worker Deployment out and retires the old ones (docs/deployment.md, "Upgrading
 * workers while runs wait"). Everything goes through the client's `workflowService` and
 * visibility: the `TemporalWorkerDeploymentVersion` search attribute says which build an execution
 * is on (it is updated as each workflow task completes).
 * @example
 * import { Client } from '@temporalio/client';
 * import { WorkerDeployments } from 'durable-agents';
 *
 * const deployments = new WorkerDeployments(new Client());
 * await deployments.setCurrent('agents', '1.5.0-9c1d2e3');  // new runs and threads' next turns go to it
 * await deployments.moveLongLived('agents');                // idle threads, limiters, slots move now
 * const old = await deployments.holdings('agents', '1.4.2-3f2c1ab');
 * if (old.retirable) console.log('stop the 1.4.2 workers');
 */
export class WorkerDeployments {
  constructor(
    private readonly client: Client,
    private readonly identity = 'durable-agents deployment',
  ) {}

  /**
   * The deployment's builds, its current and ramping build.
   * @throws DeploymentError (`DeploymentNotFound`, field `deploymentName`) when no worker of it has polled.
   */
  async describe(deploymentName: string): Promise<DeploymentDescription> {
    checkName(deploymentName);
    const response = await this.call(deploymentName, () =>
      this.client.workflowService.describeWorkerDeployment({ namespace: this.client.options.namespace, deploymentName }),
    );
    const info = response.workerDeploymentInfo;
    const routing = info?.routingConfig;
    const currentBuildId = routing?.currentDeploymentVersion?.buildId || null;
    const rampingBuildId = routing?.rampingDeploymentVersion?.buildId || null;
    const rampPercentage = routing?.rampingVersionPercentage ?? 0;
    const builds = (info?.versionSummaries ?? []).map((summary): DeploymentBuild => {
      const buildId = summary.deploymentVersion?.buildId ?? '';
      return { buildId, status: versionStatus(summary.status), ...(buildId === rampingBuildId ? { rampPercentage } : {}) };
    });
    const routingPending = info?.routingConfigUpdateState === temporal.api.enums.v1.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_IN_PROGRESS;
    return { deploymentName, currentBuildId, rampingBuildId, rampPercentage, builds, routingPending };
  }

  /**
   * Makes `buildId` the current build: new runs and threads start on it, threads move to it at
   * their next turn. A build that ramps stops ramping.
   * @throws DeploymentError naming the deployment or the build when the server knows neither.
   */
  async setCurrent(deploymentName: string, buildId: string): Promise<void> {
    await this.knownBuild(deploymentName, buildId);
    await this.call(deploymentName, () =>
      this.client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: this.client.options.namespace,
        deploymentName,
        buildId,
        identity: this.identity,
      }),
    );
  }

  /**
   * Sends `percentage` (0–100) of new executions to `buildId`, the rest to the current build; 0
   * with no build id stops ramping.
   * @throws DeploymentError for a percentage outside 0–100 (before anything is sent), or an unknown deployment or build.
   */
  async setRamping(deploymentName: string, buildId: string | null, percentage: number): Promise<void> {
    if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100) {
      throw new DeploymentError(ErrorCode.deploymentOptionsInvalid, 'percentage', `percentage must be between 0 and 100, not ${percentage}`);
    }
    if (buildId !== null) await this.knownBuild(deploymentName, buildId);
    await this.call(deploymentName, () =>
      this.client.workflowService.setWorkerDeploymentRampingVersion({
        namespace: this.client.options.namespace,
        deploymentName,
        buildId: buildId ?? '',
        percentage,
        identity: this.identity,
      }),
    );
  }

  /**
   * What `buildId` still holds: its open executions by workflow type, those waiting on approvals,
   * and whether it can retire. `description` (from `describe`) saves asking the server again when
   * the caller has it already, as for every build of a deployment at once.
   */
  async holdings(deploymentName: string, buildId: string, description?: DeploymentDescription): Promise<BuildHoldings> {
    checkName(deploymentName);
    const onBuild = `${DEPLOYMENT_VERSION_ATTRIBUTE} = '${deploymentVersionKey(deploymentName, buildId)}' AND ExecutionStatus = 'Running'`;
    const types = [WireName.agentRunWorkflow, ...LONG_LIVED_WORKFLOW_TYPES, WireName.workerToolsWorkflow, WireName.workerAgentsWorkflow];
    const [total, awaitingApproval, ...perType] = await Promise.all([
      this.count(onBuild),
      this.count(`${onBuild} AND ${AgentStatusAttribute.name} = 'awaiting_approval'`),
      ...types.map((type) => this.count(`${onBuild} AND WorkflowType = '${type}'`)),
    ]);
    const byType = Object.fromEntries(types.map((type, index) => [type, perType[index]!]).filter(([, count]) => count !== 0));
    const { currentBuildId, rampingBuildId } = description ?? (await this.describe(deploymentName));
    const blockedBy =
      buildId === currentBuildId
        ? 'it is the current build'
        : buildId === rampingBuildId
          ? 'it is the ramping build'
          : total > 0
            ? `${total} open execution(s) are pinned to it`
            : null;
    return { buildId, byType, total, awaitingApproval, retirable: blockedBy === null, blockedBy };
  }

  /**
   * Wakes every open thread, provider limiter and concurrency-slots execution of the deployment
   * that is not on its current build, with the no-op `checkVersion` signal: each moves to the
   * current build at its next safe point (an idle thread at once; one in a turn after it). Returns
   * the workflow ids signalled. Runs (`agentRun`) are never moved: they finish where they started.
   */
  async moveLongLived(deploymentName: string, routingWaitMs = 60_000): Promise<string[]> {
    const { currentBuildId } = await this.routingPropagated(deploymentName, routingWaitMs);
    if (currentBuildId === null) return [];
    const types = LONG_LIVED_WORKFLOW_TYPES.map((type) => `'${type}'`).join(', ');
    const query =
      `WorkflowType IN (${types}) AND ExecutionStatus = 'Running' AND TemporalWorkerDeployment = '${deploymentName}' ` +
      `AND ${DEPLOYMENT_VERSION_ATTRIBUTE} != '${deploymentVersionKey(deploymentName, currentBuildId)}'`;
    const signalled: string[] = [];
    for await (const execution of this.client.workflow.list({ query })) {
      try {
        // By id alone: an execution that continued as new meanwhile gets it in its new run (a no-op there).
        await this.client.workflow.getHandle(execution.workflowId).signal(checkVersionSignal);
        signalled.push(execution.workflowId);
      } catch (error) {
        // Closed between the listing and the signal: nothing left to move.
        if (grpcCode(error) !== NOT_FOUND && (error as Error).name !== 'WorkflowNotFoundError') throw error;
      }
    }
    return signalled;
  }

  /**
   * The deployment once the server has passed its routing (its current and ramping build) to its
   * task queues. Until then a woken execution's workflow task does not say that its target version
   * changed, so it would go back to waiting on its old build.
   * @throws DeploymentError (`DeploymentRoutingPending`) when that takes longer than `waitMs`.
   */
  private async routingPropagated(deploymentName: string, waitMs: number): Promise<DeploymentDescription> {
    const deadline = Date.now() + waitMs;
    for (let described = await this.describe(deploymentName); ; described = await this.describe(deploymentName)) {
      if (!described.routingPending) return described;
      if (Date.now() >= deadline) {
        throw new DeploymentError(
          ErrorCode.deploymentRoutingPending,
          'deploymentName',
          `Deployment ${deploymentName}: the server has not yet passed its new current build to its task queues (after ${Math.round(waitMs / 1000)} s); nothing was signalled, run the move again`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private async count(query: string): Promise<number> {
    return (await this.client.workflow.count(query)).count;
  }

  /** @throws DeploymentError naming the build when the deployment has no such build. */
  private async knownBuild(deploymentName: string, buildId: string): Promise<void> {
    checkDeploymentVersion({ deploymentName, buildId }, { deploymentName: 'deploymentName', buildId: 'buildId' });
    const { builds } = await this.describe(deploymentName);
    if (!builds.some((build) => build.buildId === buildId)) {
      const known = builds.map((build) => build.buildId).join(', ') || 'none';
      throw new DeploymentError(
        ErrorCode.deploymentNotFound,
        'buildId',
        `Deployment '${deploymentName}' has no build '${buildId}' (known: ${known}): start its workers (AGENT_BUILD_ID=${buildId}) and let them poll first`,
      );
    }
  }

  /** Runs a deployment call, turning the server's NOT_FOUND into a DeploymentError naming the deployment. */
  private async call<T>(deploymentName: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (grpcCode(error) !== NOT_FOUND) throw error;
      throw new DeploymentError(
        ErrorCode.deploymentNotFound,
        'deploymentName',
        `No worker deployment '${deploymentName}' in namespace '${this.client.options.namespace}': no worker of it has polled yet`,
      );
    }
  }
}

function checkName(deploymentName: string): void {
  checkDeploymentVersion({ deploymentName, buildId: 'any' }, { deploymentName: 'deploymentName', buildId: 'buildId' });
}

/** `WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING` → `draining`. */
function versionStatus(status: temporal.api.enums.v1.WorkerDeploymentVersionStatus | null | undefined): string {
  const name = temporal.api.enums.v1.WorkerDeploymentVersionStatus[status ?? 0] ?? 'UNSPECIFIED';
  return name.replace('WORKER_DEPLOYMENT_VERSION_STATUS_', '').toLowerCase();
}
