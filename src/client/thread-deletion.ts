// Deleting a thread: its stored data (conversation snapshots, offloaded tool results), then every execution of its chain.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { ownedSnapshotArtifacts } from '../artifacts/conversation-snapshots';
import { historyReferences } from '../history/history-references';
import { chainNewestFirst } from '../history/history-view';
import { AgentConfigError, ErrorCode, ThreadError } from '../protocol/errors';
import type { ResourceThreadsDeleted } from '../memory/forget-resource';
import { listThreads } from './thread-list';
import { describeThread, THREAD_DELETED_REASON } from './thread-lookup';

/** What deleting a thread deleted. */
export interface ThreadDeletion {
  threadId: string;
  /**
   * Artifacts deleted: the conversation snapshots (indexes and segments) that name the thread (or
   * one of its sub-agents) as their owner. Offloaded tool results are named by their content alone
   * and may be another run's too: they stay (docs/threads.md).
   */
  artifacts: number;
  /** Workflow executions deleted: the thread's continue-as-new chain and its sub-agents' runs. */
  workflowExecutions: number;
  /** True when the thread was open and this call terminated it (a tool call it was running may still finish on its worker). */
  terminated: boolean;
}

/** Where a thread is deleted from: the Temporal client and namespace, and the workers' artifact store. */
export interface ThreadDeletionTarget {
  temporal: Client;
  namespace: string;
  artifacts?: ArtifactStore;
}

/**
 * Deletes thread `threadId`: terminates it if it is open (a deleted conversation is not finished
 * first: its running turn and queued messages are dropped), deletes the conversation snapshots its
 * histories name that are its own (and the parts under each snapshot index), then deletes every execution of its chain and
 * of its sub-agents with Temporal's DeleteWorkflowExecution. Artifacts go first, so a delete that
 * stops half-way is finished by running it again (what is gone already counts as nothing).
 * @throws AgentConfigError when the target has no artifact store that can delete (before anything
 * is deleted); ThreadError `ThreadNotFound` when no thread has this id (also once it is deleted).
 */
export async function deleteThread(target: ThreadDeletionTarget, threadId: string): Promise<ThreadDeletion> {
  const { temporal, namespace, artifacts } = target;
  if (!artifacts?.delete) {
    const problem =
      "artifacts: deleting a thread needs the workers' artifact store, with delete (AgentClientOptions.artifacts; the CLI reads AGENT_ARTIFACT_STORE / AGENT_ARTIFACT_DIR)";
    throw new AgentConfigError(problem, [problem]);
  }
  const handle = temporal.workflow.getHandle(threadId);
  const description = await describeThread(temporal, threadId);
  const terminated =
    description.status.name === 'RUNNING' &&
    (await handle.terminate(THREAD_DELETED_REASON).then(
      () => true,
      (error: unknown) => {
        // Closed or gone meanwhile: another delete (or the thread itself) got there first.
        if (error instanceof WorkflowNotFoundError || isNotFound(error)) return false;
        throw error;
      },
    ));
  // The thread's chain, then its sub-agents' runs (and theirs), each a chain of its own whose
  // snapshots name it as their owner.
  const executions: Array<{ workflowId: string; runId: string }> = [];
  const stored = new Set<string>();
  const chains: Array<{ workflowId: string; runId?: string }> = [{ workflowId: threadId }];
  for (let next = chains.shift(); next; next = chains.shift()) {
    try {
      for await (const execution of chainNewestFirst(temporal, next.workflowId, next.runId)) {
        executions.push({ workflowId: next.workflowId, runId: execution.runId });
        const found = historyReferences([execution]);
        for (const id of found.artifactIds) await ownedSnapshotArtifacts(artifacts, id, next.workflowId, stored);
        chains.push(...found.children);
      }
    } catch (error) {
      // Executions are deleted oldest first: one that is gone (an interrupted delete) has no older ones left.
      if (!isNotFound(error)) throw error;
    }
  }
  let deletedArtifacts = 0;
  for (const id of stored) if (await artifacts.delete(id)) deletedArtifacts++;
  let deletedExecutions = 0;
  for (const execution of executions.reverse()) {
    if (await deleteExecution(temporal, namespace, execution)) deletedExecutions++;
  }
  return { threadId, artifacts: deletedArtifacts, workflowExecutions: deletedExecutions, terminated };
}

/**
 * Deletes every thread of `resourceId` (open and closed, found by `AgentResource`) as `deleteThread`
 * does, but those in `skip`. A thread listed but gone (deleted meanwhile: visibility lags behind)
 * counts as nothing.
 */
export async function deleteResourceThreads(
  target: ThreadDeletionTarget,
  resourceId: string,
  skip: ReadonlySet<string> = new Set(),
  waitMs = DELETION_WAIT_MS,
): Promise<ResourceThreadsDeleted> {
  const deleted: Required<ResourceThreadsDeleted> = { threads: 0, artifacts: 0, workflowExecutions: 0, stopped: 0, threadIds: [], stillDeleting: [] };
  const ids = new Set<string>();
  for (const status of ['closed', undefined] as const) {
    for (const thread of await listThreads(target.temporal, { resourceId, ...(status ? { status } : {}), limit: Number.MAX_SAFE_INTEGER }))
      if (!skip.has(thread.threadId)) ids.add(thread.threadId);
  }
  for (const threadId of ids) {
    const one = await deleteThread(target, threadId).catch((error: unknown) => {
      if (error instanceof ThreadError && error.code === ErrorCode.threadNotFound) return null;
      throw error;
    });
    if (!one) continue;
    deleted.threadIds.push(threadId);
    // A thread already being deleted (described a moment longer) has nothing left: not counted.
    if (one.workflowExecutions > 0) deleted.threads++;
    deleted.artifacts += one.artifacts;
    deleted.workflowExecutions += one.workflowExecutions;
    if (one.terminated) deleted.stopped++;
  }
  deleted.stillDeleting = await untilDeleted(target.temporal, deleted.threadIds, waitMs);
  return deleted;
}

/** How long `deleteResourceThreads` waits for Temporal to finish deleting (the dev server takes about 5 s, a cluster a minute or more). */
const DELETION_WAIT_MS = 90_000;

/**
 * Waits until Temporal has deleted the threads (it deletes executions asynchronously, a moment
 * after the request): a second delete then finds nothing. Returns the ids still there after `waitMs`.
 */
async function untilDeleted(temporal: Client, threadIds: readonly string[], waitMs: number): Promise<string[]> {
  const giveUpAt = Date.now() + waitMs;
  let left = [...threadIds];
  for (;;) {
    const gone = await Promise.all(
      left.map((threadId) =>
        temporal.workflow
          .getHandle(threadId)
          .describe()
          .then(() => false, isNotFound),
      ),
    );
    left = left.filter((_, index) => !gone[index]);
    if (left.length === 0 || Date.now() >= giveUpAt) return left;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** DeleteWorkflowExecution: true when deleted, false when the execution was gone already. */
async function deleteExecution(temporal: Client, namespace: string, workflowExecution: { workflowId: string; runId: string }): Promise<boolean> {
  try {
    await temporal.workflowService.deleteWorkflowExecution({ namespace, workflowExecution });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Gone: deleted by an earlier, interrupted delete, or by the namespace's retention (gRPC NOT_FOUND is 5). */
function isNotFound(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError || (error as { code?: number } | null)?.code === 5;
}
