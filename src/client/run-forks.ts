// The forks of a run, found by their AgentForkOf search attribute, for `history` to list.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { decode } from '../history/history-events';
import type { AgentRunWorkflowInput } from '../protocol/run-types';
import { AgentForkOfAttribute } from '../protocol/search-attributes';

/** One fork of a run: where it started from and where it stands. */
export interface RunFork {
  workflowId: string;
  /** The origin's step the fork continues after (null when its start could not be read). */
  step: number | null;
  /** How many edits the fork made to the origin's conversation (0: none, or its start could not be read). */
  edits: number;
  /** The fork's latest execution's status, as Temporal names it in lower case (`completed`, `running`, …). */
  status: string;
  startedAt: string;
}

/**
 * The forks of `workflowId` (at most `limit`, oldest first). Visibility lists every execution of a
 * fork's continue-as-new chain (each carries `AgentForkOf`): a fork's step is read from its first
 * execution's input, its status from its latest execution.
 * @example
 * for (const fork of await listRunForks(client, 'support-1a2b3c4d')) console.log(fork.workflowId, fork.step);
 */
export async function listRunForks(client: Client, workflowId: string, limit = 50): Promise<RunFork[]> {
  const chains = new Map<string, WorkflowExecutionInfo[]>();
  const query = `${AgentForkOfAttribute.name} = ${JSON.stringify(workflowId)}`;
  for await (const execution of client.workflow.list({ query })) {
    const chain = chains.get(execution.workflowId) ?? [];
    chain.push(execution);
    chains.set(execution.workflowId, chain);
    if (chains.size > limit) break;
  }
  const forks = await Promise.all(
    [...chains.values()].slice(0, limit).map(async (executions) => {
      const byStart = [...executions].sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
      const first = byStart[0]!;
      const latest = byStart.at(-1)!;
      return {
        workflowId: first.workflowId,
        ...(await forkStart(client, first)),
        status: latest.status.name.toLowerCase().replace(/_/g, ' '),
        startedAt: first.startTime.toISOString(),
      };
    }),
  );
  return forks.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/** The forked step and the number of edits, from the first event of the fork's first execution (one event read, not the history). */
async function forkStart(client: Client, execution: WorkflowExecutionInfo): Promise<{ step: number | null; edits: number }> {
  try {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: execution.workflowId, runId: execution.runId },
      maximumPageSize: 1,
    });
    const input = decode<AgentRunWorkflowInput>(page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
    return { step: input?.fork?.step ?? null, edits: input?.fork?.edits?.length ?? 0 };
  } catch {
    return { step: null, edits: 0 };
  }
}
