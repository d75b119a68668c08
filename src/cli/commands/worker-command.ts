import { resolveTemporalTarget } from '../../connection/temporal-target';
import { formatDuration } from '../../config/duration';
import { keepHealthFile } from '../../worker/health-file';
import { loadTools, loadWorkerExtensions } from '../../worker/load-tools';
import { DEFAULT_SHUTDOWN_GRACE_MS, parseShutdownGrace, shutdownGraceFromEnvironment } from '../../worker/shutdown-grace';
import { installRuntimeLogger, startWorker } from '../../worker/start-worker';
import { BUILD_ID_VARIABLE, checkDeploymentVersion, DEPLOYMENT_NAME_VARIABLE, type AgentDeploymentVersion } from '../../worker/deployment-options';

export interface WorkerCommandOptions {
  tools?: string;
  taskQueue?: string;
  /** false with `--no-demo-tools`. */
  demoTools?: boolean;
  /** `--setup`: register the search attributes before polling. */
  setup?: boolean;
  /** `--health-file` (or AGENT_WORKER_HEALTH_FILE): kept fresh while the worker polls. */
  healthFile?: string;
  /** `--shutdown-grace` (or AGENT_WORKER_SHUTDOWN_GRACE): how long a stop lets in-flight tasks finish. */
  shutdownGrace?: string;
  /** `--deployment-name` (or AGENT_DEPLOYMENT_NAME): the Worker Deployment this worker belongs to. */
  deploymentName?: string;
  /** `--build-id` (or AGENT_BUILD_ID): this build of the deployment. */
  buildId?: string;
  /** `--agents` (or AGENT_AGENTS_DIR): a folder of agent definitions the worker offers by name. */
  agents?: string;
  /** `--decision-public-key` (or DURABLE_AGENTS_DECISION_PUBLIC_KEYS): PEM files verified decisions are checked with. */
  decisionPublicKey?: string[];
  /** `--require-verified-decisions` (or DURABLE_AGENTS_REQUIRE_VERIFIED_DECISIONS=1): run no call approved without a verified proof. */
  requireVerifiedDecisions?: boolean;
}

/** `worker`: runs an agent worker against TEMPORAL_ADDRESS (or the local dev server) until Ctrl-C. */
export async function workerCommand(options: WorkerCommandOptions): Promise<void> {
  // Before connecting: a mistyped grace is a user error (exit 2), not a worker that drains 0 s.
  const shutdownGraceMs =
    options.shutdownGrace !== undefined
      ? parseShutdownGrace(options.shutdownGrace, '--shutdown-grace')
      : (shutdownGraceFromEnvironment() ?? DEFAULT_SHUTDOWN_GRACE_MS);
  const deployment = deploymentOf(options) ?? false;
  installRuntimeLogger('agent-worker');
  const target = resolveTemporalTarget();
  const tools = await loadTools({ modulePath: options.tools, demoTools: options.demoTools });
  const extensions = await loadWorkerExtensions({ modulePath: options.tools });
  const agentsFolder = options.agents ?? (process.env.AGENT_AGENTS_DIR || undefined);
  const running = await startWorker(target, {
    tools,
    extensions,
    taskQueue: options.taskQueue,
    registerSearchAttributes: options.setup,
    shutdownGraceMs,
    deployment,
    ...(agentsFolder ? { agentsFolder } : {}),
    ...(options.decisionPublicKey ? { decisionPublicKeyFiles: options.decisionPublicKey } : {}),
    ...(options.requireVerifiedDecisions ? { requireVerifiedDecisions: true } : {}),
  });
  const healthFile = options.healthFile ?? process.env.AGENT_WORKER_HEALTH_FILE;
  // The pollers start with run(); the first write comes once they poll.
  const stopHealth = healthFile ? keepHealthFile(running.worker, healthFile) : () => {};
  // The SDK's runtime stops the worker on these signals; say what the stop waits for.
  const announceStop = (signal: string) =>
    console.log(
      `${signal}: finishing in-flight tasks (${running.worker.getStatus().numInFlightActivities} activities) for up to ${formatDuration(shutdownGraceMs)}, then handing the rest to other workers`,
    );
  const signals = ['SIGINT', 'SIGTERM'] as const;
  for (const signal of signals) process.once(signal, announceStop);
  const version = deployment ? ` as build ${deployment.buildId} of deployment ${deployment.deploymentName}` : '';
  console.log(
    `Worker polling ${target.address} (namespace ${target.namespace})${version} with tools: ${tools.map((tool) => tool.name).join(', ') || 'none'}`,
  );
  try {
    await running.done;
  } finally {
    stopHealth();
    for (const signal of signals) process.removeListener(signal, announceStop);
  }
}

/**
 * The worker's deployment version: each flag, else its variable (an empty one counts as unset);
 * both or neither, and an error names the flag or variable each came from.
 */
function deploymentOf(options: WorkerCommandOptions): AgentDeploymentVersion | undefined {
  const name = setting(options.deploymentName, '--deployment-name', DEPLOYMENT_NAME_VARIABLE);
  const build = setting(options.buildId, '--build-id', BUILD_ID_VARIABLE);
  return checkDeploymentVersion({ deploymentName: name.value, buildId: build.value }, { deploymentName: name.source, buildId: build.source });
}

function setting(flagValue: string | undefined, flag: string, variable: string): { value: string | undefined; source: string } {
  return flagValue !== undefined ? { value: flagValue, source: flag } : { value: process.env[variable] || undefined, source: variable };
}
