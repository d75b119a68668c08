// The activities of concurrency caps: asking a slots workflow for a slot (starting it if need be), and checking whether slot holders still run.
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import {
  ConcurrencyWireName,
  concurrencySlotsWorkflowId,
  slotRequestSignal,
  type ConcurrencySlotsInput,
  type RequestConcurrencySlotInput,
  type SlotHolderCheck,
  type SlotRequest,
} from '../protocol/concurrency-slots';
import { currentRunExecution } from './run-execution';
import { limiterReaskMs } from './reserve-model-call';

export interface ConcurrencySlotDependencies {
  /** A client on the worker's namespace, to signal the slots workflows and describe holders. */
  limiterClient: Client;
}

/**
 * The activities of concurrency caps (docs/provider-limits.md, "Concurrency caps"):
 * `requestConcurrencySlot` sends a run's request to the slots workflow of its task queue and cap,
 * starting it when none runs (signal-with-start); the grant comes back to the run as a signal, so a
 * retried activity only repeats the request, which the slots workflow answers once.
 * `checkSlotHolders` answers which holders' run chains no longer run (closed, or their workflow id
 * now names another chain), so their slots are freed.
 */
export function createConcurrencySlotActivities(dependencies: ConcurrencySlotDependencies) {
  const client = dependencies.limiterClient;
  return {
    async requestConcurrencySlot(input: RequestConcurrencySlotInput): Promise<{ reaskAfterMs?: number }> {
      const { taskQueue } = Context.current().info;
      const key = `${taskQueue}/${input.cap.key}`;
      const request: SlotRequest = {
        capKey: input.cap.key,
        holderId: input.holderId,
        workflowId: currentRunExecution().workflowId,
        firstExecutionRunId: input.firstExecutionRunId,
        limit: input.cap.limit,
        priorityKey: input.priorityKey,
        fairnessKey: input.fairnessKey,
        ...(input.fairnessWeight !== undefined ? { fairnessWeight: input.fairnessWeight } : {}),
      };
      const slotsInput: ConcurrencySlotsInput = { key };
      await client.workflow.signalWithStart(ConcurrencyWireName.slotsWorkflow, {
        workflowId: concurrencySlotsWorkflowId(taskQueue, input.cap.key),
        taskQueue,
        args: [slotsInput],
        signal: slotRequestSignal,
        signalArgs: [request],
        staticSummary: `concurrency cap ${input.cap.key} on ${taskQueue}`,
        // The slots serve every tenant: their own tasks go first.
        priority: { priorityKey: 1 },
      });
      const reaskAfterMs = limiterReaskMs();
      return reaskAfterMs !== undefined ? { reaskAfterMs } : {};
    },

    async checkSlotHolders(holders: SlotHolderCheck[]): Promise<string[]> {
      const gone: string[] = [];
      for (const holder of holders) {
        Context.current().heartbeat();
        if (!(await chainRuns(client, holder))) gone.push(holder.holderId);
      }
      return gone;
    },
  };
}

/** Whether the holder's run chain still runs: its workflow id's newest execution is running and belongs to the same chain. */
async function chainRuns(client: Client, holder: SlotHolderCheck): Promise<boolean> {
  try {
    const description = await client.workflow.getHandle(holder.workflowId).describe();
    if (description.status.name !== 'RUNNING') return false;
    const firstRunId = description.raw.workflowExecutionInfo?.firstRunId;
    // Servers that do not say which chain an execution belongs to: a running execution of the id counts.
    return !firstRunId || firstRunId === holder.firstExecutionRunId;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
