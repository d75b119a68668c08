// The workflow a thread schedule starts on each fire: one activity that posts the schedule's message into its thread.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import { ErrorCode } from '../../protocol/errors';
import type { ScheduledThreadPostInput, ThreadPostReceipt } from '../../protocol/schedule-types';

/**
 * Posts a thread schedule's message into its thread, creating the thread when the schedule was
 * given a config (docs/schedules.md, "Thread digests"). Temporal schedules only start workflows,
 * so each fire is one of these: it ends once the thread accepted the message (the thread answers
 * it in a turn of its own). The message id is this workflow's id, which Temporal makes unique per
 * fire (the schedule's id and the fire's time), so a retried post is answered once and a fire is
 * never posted twice.
 * @example
 * await client.workflow.start(WireName.scheduledThreadPostWorkflow, { taskQueue: 'agent-runs', workflowId: 'digest-post-1', args: [{ threadId: 'digest', text: 'Today?' }] });
 */
export async function scheduledThreadPost(input: ScheduledThreadPostInput): Promise<ThreadPostReceipt> {
  const { postThreadMessage } = proxyActivities<AgentActivities>({
    activityId: 'post-thread-message',
    startToCloseTimeout: '1 minute',
    // A busy thread or a restarting server passes; what the thread refuses for good does not.
    retry: {
      initialInterval: '1s',
      maximumInterval: '30s',
      maximumAttempts: 10,
      nonRetryableErrorTypes: [ErrorCode.threadNotFound, ErrorCode.threadClosed, ErrorCode.threadConfigMismatch, ErrorCode.invalidMessage],
    },
  });
  const { workflowId, taskQueue } = workflowInfo();
  return postThreadMessage({ ...input, messageId: `scheduled:${workflowId}`, taskQueue });
}
