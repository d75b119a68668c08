// Finds threads through visibility: by agent, resource, status.
import type { Client } from '@temporalio/client';
import { AgentNameAttribute, AgentResourceAttribute, AgentStatusAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';

/** Which threads `AgentClient.listThreads` returns (all filters combine; none: every open thread). */
export interface ThreadFilter {
  /** Threads of this agent (`AgentName`). */
  agent?: string;
  /** Threads of this resource (`AgentResource`). */
  resourceId?: string;
  /** `idle` (waiting for a message), `running` (a turn runs), `awaiting_approval`, or `closed`. Default: every open thread. */
  status?: 'idle' | 'running' | 'awaiting_approval' | 'closed';
  /** At most this many (newest first). Default: 100. */
  limit?: number;
}

/** One thread as visibility lists it. */
export interface ThreadSummary {
  threadId: string;
  agent: string | null;
  resourceId: string | null;
  status: string | null;
  /** When the thread's current execution started (it changes when the thread continues as new). */
  startTime: Date;
  /** Whether the thread is open (not closed, failed or terminated). */
  open: boolean;
}

/** The visibility query for `filter`. Values are quoted, so ids with quotes cannot change the query. */
export function threadListQuery(filter: ThreadFilter): string {
  const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const clauses = [`WorkflowType = ${quote(WireName.agentThreadWorkflow)}`];
  if (filter.agent) clauses.push(`${AgentNameAttribute.name} = ${quote(filter.agent)}`);
  if (filter.resourceId) clauses.push(`${AgentResourceAttribute.name} = ${quote(filter.resourceId)}`);
  if (filter.status === 'closed') clauses.push(`ExecutionStatus != 'Running'`);
  else {
    clauses.push(`ExecutionStatus = 'Running'`);
    if (filter.status) clauses.push(`${AgentStatusAttribute.name} = ${quote(filter.status)}`);
  }
  return clauses.join(' AND ');
}

/** Lists threads matching `filter` (visibility is eventually consistent: a thread created a moment ago may be missing). */
export async function listThreads(temporal: Client, filter: ThreadFilter = {}): Promise<ThreadSummary[]> {
  const found: ThreadSummary[] = [];
  for await (const execution of temporal.workflow.list({ query: threadListQuery(filter) })) {
    const attributes = execution.typedSearchAttributes;
    found.push({
      threadId: execution.workflowId,
      agent: attributes.get(AgentNameAttribute) ?? null,
      resourceId: attributes.get(AgentResourceAttribute) ?? null,
      status: attributes.get(AgentStatusAttribute) ?? null,
      startTime: execution.startTime,
      open: execution.status.name === 'RUNNING',
    });
    if (found.length >= (filter.limit ?? 100)) break;
  }
  return found;
}
