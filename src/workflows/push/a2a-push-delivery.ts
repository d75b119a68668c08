// The push workflow of one A2A task: holds the task's push configs and runs the activity that posts the task's changes to them.
import { ActivityFailure, allHandlersFinished, ApplicationFailure, condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import {
  A2aPushFailure,
  DEFAULT_PUSH_FOLLOW_LIMIT_MS,
  deletePushConfigUpdate,
  pushConfigProblem,
  pushConfigsQuery,
  setPushConfigUpdate,
  type A2aPushInput,
  type A2aPushOutcome,
  type SealedPushConfig,
} from '../../protocol/a2a-push';

/**
 * One per A2A task that has push configs (workflow id `a2a-push:<task id>`), started by the first
 * config a gateway sets (update-with-start), so the configs outlive any gateway process and one
 * delivery runs however many gateways follow the task. It waits for a config, then runs
 * `deliverA2aPush` (one long activity on the agent workers, heartbeating what it delivered) until
 * the task has ended and its last state was posted, or until the follow limit: it never waits for
 * ever. The configs' secrets arrive sealed; this workflow never sees them in plaintext.
 * @example
 * await client.workflow.executeUpdateWithStart(setPushConfigUpdate, { args: [config], startWorkflowOperation: new WithStartWorkflowOperation('a2aPushDelivery', { workflowId: a2aPushWorkflowId(task.taskId), taskQueue: 'agent-runs', args: [{ task }], workflowIdConflictPolicy: 'USE_EXISTING' }) });
 */
export async function a2aPushDelivery(input: A2aPushInput): Promise<A2aPushOutcome> {
  const configs = new Map<string, SealedPushConfig>();
  let ended = false;
  const listed = () => [...configs.values()];
  setHandler(
    setPushConfigUpdate,
    (config) => {
      configs.set(config.id, config);
      return listed();
    },
    {
      validator: (config) => {
        if (ended) throw ApplicationFailure.nonRetryable('push delivery of this task has ended', A2aPushFailure.ended);
        const problem = pushConfigProblem(config, configs);
        if (problem !== null) throw ApplicationFailure.nonRetryable(problem, A2aPushFailure.configRefused);
      },
    },
  );
  setHandler(
    deletePushConfigUpdate,
    (id) => {
      configs.delete(id);
      return listed();
    },
    {
      validator: (id) => {
        if (!configs.has(id)) throw ApplicationFailure.nonRetryable(`no push config '${id}' on this task`, A2aPushFailure.configNotFound);
      },
    },
  );
  setHandler(pushConfigsQuery, () => ({ configs: listed(), ended }));

  const limitMs = input.followLimitMs ?? DEFAULT_PUSH_FOLLOW_LIMIT_MS;
  const deadline = workflowInfo().startTime.getTime() + limitMs;
  let outcome: A2aPushOutcome = { finalState: null, delivered: 0, failed: 0 };
  if (await condition(() => configs.size > 0, limitMs)) {
    const { deliverA2aPush } = proxyActivities<AgentActivities>({
      activityId: 'deliver-a2a-push',
      startToCloseTimeout: Math.max(1_000, deadline - Date.now()),
      // A worker that stops is noticed within a minute; the next attempt resumes from the heartbeat.
      heartbeatTimeout: '1 minute',
      retry: { initialInterval: '2s', maximumInterval: '1 minute', backoffCoefficient: 2, maximumAttempts: 50 },
    });
    try {
      outcome = await deliverA2aPush({ task: input.task, pushWorkflowId: workflowInfo().workflowId });
    } catch (error) {
      // Its tries used up or its time passed: delivery ends here, the task goes on without it.
      if (!(error instanceof ActivityFailure)) throw error;
    }
  }
  ended = true;
  await condition(allHandlersFinished);
  return outcome;
}
