// What workflows, workers and the operator command share about Worker Deployment Versioning: the wake-up signal and the server's search attribute names.
import { defineSignal } from '@temporalio/workflow';
import { ConcurrencyWireName } from './concurrency-slots';
import { ProviderLimitWireName } from './provider-limits';
import { WireName } from './wire-names';

/**
 * Wakes a long-lived execution (thread, provider limiter, concurrency slots) pinned to an older
 * build: the workflow task it causes carries the server's "target version changed" flag, and the
 * execution continues as new on the target version at its next safe point. It carries nothing and
 * changes nothing else; sending it to an execution already on the target version costs one
 * workflow task.
 * @example
 * await client.workflow.getHandle('support:customer-42').signal(checkVersionSignal);
 */
export const checkVersionSignal = defineSignal<[]>(WireName.checkVersionSignal);

/**
 * The workflow types that move to a new build by continue-as-new (they live for months); every
 * other type (`agentRun`, `agentWorkerTools`) finishes on the build that started it.
 */
export const LONG_LIVED_WORKFLOW_TYPES = [
  WireName.agentThreadWorkflow,
  ProviderLimitWireName.limiterWorkflow,
  ConcurrencyWireName.slotsWorkflow,
] as const;

/**
 * The server's search attribute with an execution's Worker Deployment Version, as
 * `<deployment name>:<build id>` (Temporal server 1.28+; kept up to date at each workflow task).
 * @example
 * import { DEPLOYMENT_VERSION_ATTRIBUTE } from 'durable-agents/workflow';
 *
 * const { count } = await client.workflow.count(`${DEPLOYMENT_VERSION_ATTRIBUTE} = 'agents:1.4.0' AND ExecutionStatus = 'Running'`);
 */
export const DEPLOYMENT_VERSION_ATTRIBUTE = 'TemporalWorkerDeploymentVersion';

/** The server's search attribute with an execution's versioning behavior (`Pinned`, `AutoUpgrade`). */
export const VERSIONING_BEHAVIOR_ATTRIBUTE = 'TemporalWorkflowVersioningBehavior';

/** The search attribute value of a version: `<deployment name>:<build id>`. */
export function deploymentVersionKey(deploymentName: string, buildId: string): string {
  return `${deploymentName}:${buildId}`;
}
