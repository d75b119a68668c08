// How long-lived workflows (threads, the provider limiter, concurrency slots) leave an old build: by continue-as-new onto the target version, at a point of their choosing.
import { setHandler, workflowInfo, type ContinueAsNewOptions } from '@temporalio/workflow';
import { checkVersionSignal } from '../../protocol/deployment-versions';

/**
 * Whether the server says this execution's Worker Deployment has another target version than the
 * one it is pinned to (a new current or ramping build). It is read from the workflow task, so it
 * is recorded in history and replays the same; it is always false on unversioned workers and on
 * servers without upgrade-on-continue-as-new (before 1.32).
 */
export function targetVersionChanged(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged;
}

/**
 * Handles the `checkVersion` signal, which only wakes the execution: its workflow task brings the
 * flag above, and the workflow's wait conditions include it. Without a task a pinned execution
 * never hears that the target changed (a current-version change creates none).
 */
export function installVersionCheck(): void {
  setHandler(checkVersionSignal, () => {});
}

/**
 * The continue-as-new options that move the next execution to the target version, or none (it
 * stays pinned to this build: a history-length continue-as-new, a handoff, a thread in a turn).
 * `AUTO_UPGRADE` is for the next execution's first task only: once a worker of the target build
 * completes it, the workflow is pinned again, to that build.
 */
export function versionMoveOptions(move: boolean): Pick<ContinueAsNewOptions, 'initialVersioningBehavior'> {
  return move ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : {};
}
