// A versioned worker's agents on its Worker Deployment: reads what the deployment's builds recorded (to refuse a conflicting start) and records its own on its build's version metadata.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { AgentDefinitionError } from '../agents/agent-definition-error';
import type { AgentDefinition } from '../agents/define-agent';
import {
  labelConflicts,
  mergedRecord,
  parseRecordedAgents,
  recordOf,
  RECORDED_AGENTS_KEY,
  type BuildRecord,
  type RecordedAgents,
} from '../agents/deployment-labels';
import { grpcCode } from '../connection/ensure-namespace';

/** gRPC status NOT_FOUND: the deployment or the version does not exist (yet). */
const NOT_FOUND = 5;

/** How long a worker keeps trying to record its agents while its version is not yet on the server. */
export interface RecordRetry {
  /** Attempts in all (default 40). */
  attempts: number;
  /** The first wait between attempts, doubled up to `maxDelayMs` (default 500). */
  delayMs: number;
  /** Default 5,000: about three minutes in all with the defaults. */
  maxDelayMs: number;
}

const DEFAULT_RETRY: RecordRetry = { attempts: 40, delayMs: 500, maxDelayMs: 5_000 };

/**
 * Refuses the worker's start when its agents conflict with what the deployment's builds recorded
 * (`labelConflicts`: another worker of its build offers another version of an agent, or a build
 * offers another version under the same label). A deployment or version that does not exist yet
 * has recorded nothing. When the server cannot be read (a server without Worker Deployments, a
 * credential without the right to describe them) it logs a warning and lets the worker start: the
 * check is advisory there.
 * @throws AgentDefinitionError (`AgentDefinitionInvalid`) naming the deployment and build, one
 * problem per conflicting agent (its label, both versions, the other build).
 */
export async function checkDeploymentAgents(
  client: Client,
  version: WorkerDeploymentVersion,
  definitions: readonly AgentDefinition[],
): Promise<void> {
  if (definitions.length === 0) return;
  let recorded: BuildRecord[];
  try {
    recorded = await readDeploymentRecords(client, version);
  } catch (error) {
    Runtime.instance().logger.warn(
      `durable-agents: could not read what the builds of Worker Deployment '${version.deploymentName}' recorded of their agents (${describeError(error)}); starting without checking that one label means one definition across the deployment (the check is advisory on this server or credential)`,
    );
    return;
  }
  const problems = labelConflicts({ buildId: version.buildId, agents: recordOf(definitions) }, recorded);
  if (problems.length > 0) {
    throw new AgentDefinitionError(`Worker Deployment '${version.deploymentName}', build '${version.buildId}'`, problems);
  }
}

/**
 * What every build of the deployment recorded, its own build included (another worker of it may
 * have written first). Builds without a record, or with one this release cannot read, are left out.
 * @throws the server's error for anything but NOT_FOUND.
 */
export async function readDeploymentRecords(client: Client, version: WorkerDeploymentVersion): Promise<BuildRecord[]> {
  const { namespace } = client.options;
  const { deploymentName } = version;
  const described = await orNotFound(client.workflowService.describeWorkerDeployment({ namespace, deploymentName }));
  const buildIds = new Set((described?.workerDeploymentInfo?.versionSummaries ?? []).map((summary) => summary.deploymentVersion?.buildId ?? ''));
  buildIds.add(version.buildId);
  buildIds.delete('');
  const records = await Promise.all(
    [...buildIds].map(async (buildId) => ({ buildId, agents: (await readBuildRecord(client, { deploymentName, buildId })) ?? null })),
  );
  return records.filter((record): record is BuildRecord => record.agents !== null);
}

/**
 * Records the worker's agents on its build's version metadata, merged with what other workers of
 * the build recorded. The version exists only once a worker of the build has polled, so it retries
 * (doubling waits, bounded by `retry`) while the server does not know it, and gives up with a
 * warning; it never throws. Stops when `signal` aborts (the worker stopped).
 */
export async function recordDeploymentAgents(
  client: Client,
  version: WorkerDeploymentVersion,
  definitions: readonly AgentDefinition[],
  signal: AbortSignal,
  retry: RecordRetry = DEFAULT_RETRY,
): Promise<void> {
  if (definitions.length === 0) return;
  const logger = Runtime.instance().logger;
  const where = `build '${version.buildId}' of Worker Deployment '${version.deploymentName}'`;
  let delay = retry.delayMs;
  for (let attempt = 1; attempt <= retry.attempts && !signal.aborted; attempt++) {
    try {
      const existing = await readBuildRecord(client, version);
      if (existing === undefined) throw Object.assign(new Error('version not registered yet'), { code: NOT_FOUND });
      await client.workflowService.updateWorkerDeploymentVersionMetadata({
        namespace: client.options.namespace,
        deploymentVersion: version,
        upsertEntries: { [RECORDED_AGENTS_KEY]: defaultPayloadConverter.toPayload(mergedRecord(existing, recordOf(definitions))) },
        identity: 'durable-agents worker',
      });
      return;
    } catch (error) {
      if (grpcCode(error) !== NOT_FOUND) {
        logger.warn(
          `durable-agents: could not record this worker's agents on ${where} (${describeError(error)}); workers that start later cannot check their labels against it`,
        );
        return;
      }
    }
    await pause(delay, signal);
    delay = Math.min(delay * 2, retry.maxDelayMs);
  }
  if (!signal.aborted) {
    logger.warn(
      `durable-agents: gave up recording this worker's agents on ${where} after ${retry.attempts} attempts (the server does not know the version yet); workers that start later cannot check their labels against it`,
    );
  }
}

/**
 * The record of one build: `null` when it has none (or one this release cannot read), `undefined`
 * when the server does not know the version.
 */
async function readBuildRecord(client: Client, deploymentVersion: WorkerDeploymentVersion): Promise<RecordedAgents | null | undefined> {
  const described = await orNotFound(
    client.workflowService.describeWorkerDeploymentVersion({ namespace: client.options.namespace, deploymentVersion }),
  );
  if (!described) return undefined;
  const payload = described.workerDeploymentVersionInfo?.metadata?.entries?.[RECORDED_AGENTS_KEY];
  if (!payload) return null;
  try {
    return parseRecordedAgents(defaultPayloadConverter.fromPayload(payload));
  } catch {
    return null;
  }
}

/** The response, or `null` when the server answers NOT_FOUND. */
async function orNotFound<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (grpcCode(error) === NOT_FOUND) return null;
    throw error;
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
