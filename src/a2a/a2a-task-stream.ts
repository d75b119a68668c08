// A task's updates as they happen: a snapshot, then what the workflow logs after it, from the gateway's shared feed.
import type { StreamResponse } from '@a2a-js/sdk';
import { FeedStoppedError } from '../gateway/streams/run-feed';
import { isFinalState } from './a2a-task-fold';
import type { TaskReadContext, TaskSnapshot, TaskTarget } from './a2a-task-reads';

/** How a task stream ends besides a final state. */
export interface TaskStreamOptions {
  signal: AbortSignal;
  /**
   * Approvals this stream's caller just decided: a wait for input that still lists one of them is
   * the old wait, whose decision the log has not shown yet, so the stream goes on past it.
   */
  decided?: ReadonlySet<string>;
  /** Go on past waits for input, to the task's end (a cancel waits for the run to end). */
  untilFinal?: boolean;
}

/**
 * The task (the snapshot) first, then each status and artifact update the workflow's events make,
 * until the task ends or waits for input with everything logged read (the caller answers with its
 * next message). Built from the log only: a stream resumed elsewhere sends a snapshot and then
 * exactly the updates after it, none missed and none twice.
 */
export async function* taskStream(
  context: TaskReadContext,
  target: TaskTarget,
  snapshot: TaskSnapshot,
  options: TaskStreamOptions,
): AsyncGenerator<StreamResponse> {
  const { fold } = snapshot;
  yield { payload: { $case: 'task', value: fold.task() } };
  if (isFinalState(fold.taskState)) return;
  const waitingAnew = () =>
    !options.untilFinal && fold.waitsForInput && !fold.pendingApprovals.some((request) => options.decided?.has(request.approvalId));
  try {
    for await (const item of context.feeds.follow(target.workflowId, snapshot.afterSeq, options.signal)) {
      if (item.kind === 'caught-up') {
        if (waitingAnew()) return;
        continue;
      }
      if (item.kind !== 'event') continue;
      yield* fold.apply(item.event);
      if (isFinalState(fold.taskState)) return;
    }
  } catch (error) {
    // The gateway is stopping: the caller resubscribes (any gateway) and gets the task from its log.
    if (error instanceof FeedStoppedError) return;
    throw error;
  }
  if (options.signal.aborted) return;
  // The execution closed without a final event (cancelled, terminated): say how it ended.
  const description = await context.agents.getRun(target.workflowId).workflow.describe();
  yield* fold.closed(description.status.name, Date.now());
}
