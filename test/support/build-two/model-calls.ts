// "Build 2" of the agent workflows for the rolling-upgrade test: every executor step first runs one more activity, a change that build 1's histories cannot replay.
import { log, proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../../src/activities';
import type { LoopState } from '../../../src/workflows/loop/loop-state';
import * as buildOne from '../../../src/workflows/loop/model-calls';
import { BUILD_TWO_MARK } from './mark';

export * from '../../../src/workflows/loop/model-calls';

const { listWorkerTools } = proxyActivities<AgentActivities>({ startToCloseTimeout: '1m' });

/** Build 1's step, after an extra `listWorkerTools` activity: a ScheduleActivityTask build 1 never recorded. */
export async function executorStep(state: LoopState): ReturnType<typeof buildOne.executorStep> {
  log.debug(BUILD_TWO_MARK);
  await listWorkerTools();
  return buildOne.executorStep(state);
}
