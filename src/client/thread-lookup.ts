// Finding a thread before reading it: one error (`ThreadNotFound`) for an id with no thread, and what ended a thread from outside.
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { ErrorCode, ThreadError } from '../protocol/errors';
import type { ThreadStatus } from '../protocol/thread-types';
import { WireName } from '../protocol/wire-names';

/** The reason `ThreadHandle.delete` terminates an open thread with (a waiting sender is told the thread was deleted). */
export const THREAD_DELETED_REASON = 'thread deleted';

/** `ThreadNotFound` for an id with no workflow: never created, or deleted. */
export function noThread(threadId: string): ThreadError {
  return new ThreadError(ErrorCode.threadNotFound, threadId, `no thread ${threadId} (never created, or deleted)`);
}

/** `ThreadNotFound` for a workflow that is not a thread (an agent run, a user's workflow). */
export function notAThread(threadId: string, type: string): ThreadError {
  return new ThreadError(ErrorCode.threadNotFound, threadId, `${threadId} is a ${type} workflow, not a thread`);
}

/**
 * The newest execution of thread `threadId`.
 * @throws ThreadError `ThreadNotFound` when no workflow has the id, or the workflow is not a thread.
 */
export async function describeThread(temporal: Client, threadId: string): Promise<WorkflowExecutionDescription> {
  const description = await temporal.workflow
    .getHandle(threadId)
    .describe()
    .catch((error: unknown) => {
      throw error instanceof WorkflowNotFoundError ? noThread(threadId) : error;
    });
  if (description.type !== WireName.agentThreadWorkflow) throw notAThread(threadId, description.type);
  return description;
}

/**
 * The error to give for a failed read of thread `threadId`: `ThreadNotFound` when the thread is
 * not there (or not a thread: a run has no `thread` query), else `error` itself.
 */
export async function threadReadError(temporal: Client, threadId: string, error: unknown): Promise<unknown> {
  if (error instanceof ThreadError) return error;
  return describeThread(temporal, threadId).then(
    () => error,
    (lookup: unknown) => (lookup instanceof ThreadError ? lookup : error),
  );
}

/**
 * Why a thread's execution ended from outside (terminated, timed out, cancelled, failed), or null
 * when it runs or completed by itself. The workflow never sees a termination: its own state (the
 * `thread` query, replayed) would still say `running`.
 */
export async function endedFromOutside(temporal: Client, description: WorkflowExecutionDescription): Promise<string | null> {
  switch (description.status.name) {
    case 'TERMINATED':
      return `terminated: ${(await terminationReason(temporal, description)) ?? 'no reason given'}`;
    case 'TIMED_OUT':
      return 'timed out (its execution timeout passed)';
    case 'CANCELLED':
      return 'cancelled';
    case 'FAILED':
      return 'failed';
    default:
      return null;
  }
}

/** The reason given to `terminate`: the last event of the execution's history. */
async function terminationReason(temporal: Client, description: WorkflowExecutionDescription): Promise<string | null> {
  const page = await temporal.workflowService
    .getWorkflowExecutionHistoryReverse({
      namespace: temporal.options.namespace,
      execution: { workflowId: description.workflowId, runId: description.runId },
      maximumPageSize: 1,
    })
    .catch(() => null);
  return page?.history?.events?.[0]?.workflowExecutionTerminatedEventAttributes?.reason || null;
}

/** The thread's status as the `thread` query answered it, closed when its execution was ended from outside. */
export function withOutsideEnd(status: ThreadStatus, ended: string | null): ThreadStatus {
  if (ended === null || status.phase === 'closed') return status;
  return { ...status, phase: 'closed', currentTurn: null, queued: [], closedReason: ended };
}
