// `deployment …`: roll a build of the agent workers out or ramp it, watch what each build still holds, move idle long-lived executions, and tell when an old build can retire.
import { AgentClient } from '../../client/agent-client';
import { WorkerDeployments, type BuildHoldings, type DeploymentDescription } from '../../client/worker-deployments';
import { parseDuration } from '../../config/duration';
import { DeploymentError, ErrorCode } from '../../protocol/errors';

/** How often `drained --wait` looks again. */
const DRAINED_POLL_MS = 5_000;

/** The commands share one client; it is closed when the command ends. */
async function withDeployments<T>(run: (deployments: WorkerDeployments) => Promise<T>): Promise<T> {
  const agents = await AgentClient.connect();
  try {
    return await run(new WorkerDeployments(agents.temporal));
  } finally {
    await agents.close();
  }
}

/** `deployment status <name>`: current and ramping build, and per build what it still holds. */
export async function deploymentStatusCommand(deploymentName: string, options: { json?: boolean }): Promise<void> {
  await withDeployments(async (deployments) => {
    const description = await deployments.describe(deploymentName);
    const holdings = await Promise.all(description.builds.map((build) => deployments.holdings(deploymentName, build.buildId, description)));
    if (options.json) console.log(JSON.stringify({ ...description, holdings }));
    else console.log(formatDeployment(description, holdings));
  });
}

/**
 * `deployment rollout <name> <build>`: makes the build current, then (unless `--no-move`) wakes
 * the threads, limiters and slots still on older builds so they move now rather than at their
 * next message.
 */
export async function deploymentRolloutCommand(deploymentName: string, buildId: string, options: { move?: boolean }): Promise<void> {
  await withDeployments(async (deployments) => {
    await deployments.setCurrent(deploymentName, buildId);
    console.log(`Build ${buildId} is the current build of ${deploymentName}: new runs and threads start on it.`);
    if (options.move !== false) await move(deployments, deploymentName);
  });
}

/** `deployment ramp <name> <build> <percentage>`: sends that share of new executions to the build. */
export async function deploymentRampCommand(deploymentName: string, buildId: string, percentage: string): Promise<void> {
  const value = Number(percentage);
  if (percentage.trim() === '' || !Number.isFinite(value))
    throw new DeploymentError(ErrorCode.deploymentOptionsInvalid, 'percentage', `percentage must be a number from 0 to 100, not '${percentage}'`);
  await withDeployments(async (deployments) => {
    await deployments.setRamping(deploymentName, buildId, value);
    console.log(`Build ${buildId} of ${deploymentName} ramps at ${value}% of new executions (the rest go to the current build).`);
  });
}

/** `deployment move <name>`: wakes the long-lived executions left on older builds. */
export async function deploymentMoveCommand(deploymentName: string): Promise<void> {
  await withDeployments((deployments) => move(deployments, deploymentName));
}

/**
 * `deployment drained <name> <build>`: exit 0 when the build can retire (not current, not ramping,
 * no open execution pinned to it), else exit 1 saying what holds it; `--wait` looks again until then.
 */
export async function deploymentDrainedCommand(deploymentName: string, buildId: string, options: { wait?: string }): Promise<void> {
  const waitMs = options.wait !== undefined ? waitOption(options.wait) : 0;
  await withDeployments(async (deployments) => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const holdings = await deployments.holdings(deploymentName, buildId);
      if (holdings.retirable) {
        console.log(`Build ${buildId} of ${deploymentName} holds no open execution: stop its workers.`);
        return;
      }
      if (Date.now() >= deadline) {
        console.log(`Build ${buildId} of ${deploymentName} cannot retire yet: ${holdings.blockedBy}${describeHoldings(holdings)}.`);
        process.exitCode = 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(DRAINED_POLL_MS, Math.max(0, deadline - Date.now()))));
    }
  });
}

function waitOption(text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    throw new DeploymentError(ErrorCode.deploymentOptionsInvalid, '--wait', `--wait: ${(error as Error).message}`);
  }
}

async function move(deployments: WorkerDeployments, deploymentName: string): Promise<void> {
  const moved = await deployments.moveLongLived(deploymentName);
  console.log(
    moved.length > 0
      ? `Woke ${moved.length} thread/limiter/slots execution(s) on older builds: each moves to the current build at its next safe point.`
      : 'No thread, limiter or slots execution is left on an older build.',
  );
}

/** The deployment as a table: one line per build. */
export function formatDeployment(description: DeploymentDescription, holdings: BuildHoldings[]): string {
  const lines = [
    `Deployment ${description.deploymentName}: current ${description.currentBuildId ?? '(none: unversioned workers)'}` +
      (description.rampingBuildId ? `, ramping ${description.rampingBuildId} at ${description.rampPercentage}%` : ''),
  ];
  for (const build of description.builds) {
    const held = holdings.find((entry) => entry.buildId === build.buildId);
    const retire = held ? (held.retirable ? 'can retire' : `keep: ${held.blockedBy}`) : '';
    lines.push(`  ${build.buildId}  ${build.status}  ${held ? `${held.total} open${describeHoldings(held)}` : ''}  ${retire}`);
  }
  return lines.join('\n');
}

function describeHoldings(holdings: BuildHoldings): string {
  const types = Object.entries(holdings.byType).map(([type, count]) => `${type} ${count}`);
  if (holdings.awaitingApproval > 0) types.push(`${holdings.awaitingApproval} awaiting approval`);
  return types.length > 0 ? ` (${types.join(', ')})` : '';
}
