// Finds threads through visibility: by agent, resource, status and last activity.
import { visibilityString } from './visibility-quote';
import type { Client } from '@temporalio/client';
import { AgentLastActivityAttribute, AgentNameAttribute, AgentResourceAttribute, AgentStatusAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';
import { searchAttributesMissing } from './search-attribute-errors';

/** The statuses a thread's `AgentStatus` takes (`closed` lists threads that are no longer open). */
export const THREAD_LIST_STATUSES = ['idle', 'running', 'awaiting_approval', 'closed'] as const;

/** Which threads `AgentClient.listThreads` returns (all filters combine; none: every open thread). */
export interface ThreadFilter {
  /** Threads of this agent (`AgentName`). */
  agent?: string;
  /** Threads of this resource (`AgentResource`). */
  resourceId?: string;
  /** `idle` (waiting for a message), `running` (a turn runs), `awaiting_approval`, or `closed`. Default: every open thread. */
  status?: (typeof THREAD_LIST_STATUSES)[number];
  /**
   * Only threads without a message or a finished turn for at least this many milliseconds
   * (`AgentLastActivity`). Threads created before the attribute existed have none and are left out.
   */
  idleForMs?: number;
  /**
   * `started` (default): newest execution first, as visibility lists them. `last-activity`: the
   * longest idle first; this reads every matching thread before it cuts at `limit` (visibility on
   * SQL cannot sort by a custom attribute).
   */
  sort?: 'started' | 'last-activity';
  /** At most this many. Default: 100. */
  limit?: number;
}

/** One thread as visibility lists it. */
export interface ThreadSummary {
  threadId: string;
  agent: string | null;
  resourceId: string | null;
  status: string | null;
  /** When the thread last received a message or finished a turn (null for threads older than the attribute). */
  lastActivity: Date | null;
  /** When the thread's current execution started (it changes when the thread continues as new). */
  startTime: Date;
  /** Whether the thread is open (not closed, failed or terminated). */
  open: boolean;
}

/** The visibility query for `filter` (`now` is the clock `idleForMs` counts from). Values are quoted, so ids with quotes cannot change the query. */
export function threadListQuery(filter: ThreadFilter, now: Date = new Date()): string {
  const quote = visibilityString;
  const clauses = [`WorkflowType = ${quote(WireName.agentThreadWorkflow)}`];
  if (filter.agent) clauses.push(`${AgentNameAttribute.name} = ${quote(filter.agent)}`);
  if (filter.resourceId) clauses.push(`${AgentResourceAttribute.name} = ${quote(filter.resourceId)}`);
  if (filter.status === 'closed') clauses.push(`ExecutionStatus != 'Running'`);
  else {
    clauses.push(`ExecutionStatus = 'Running'`);
    if (filter.status) clauses.push(`${AgentStatusAttribute.name} = ${quote(filter.status)}`);
  }
  if (filter.idleForMs !== undefined)
    clauses.push(`${AgentLastActivityAttribute.name} < ${quote(new Date(now.getTime() - filter.idleForMs).toISOString())}`);
  return clauses.join(' AND ');
}

/**
 * Lists threads matching `filter` (visibility is eventually consistent: a thread created a moment ago may be missing).
 * @throws SearchAttributesMissingError when the namespace lacks an attribute the query uses (rerun `setup`).
 */
export async function listThreads(temporal: Client, filter: ThreadFilter = {}): Promise<ThreadSummary[]> {
  const limit = filter.limit ?? 100;
  const byActivity = filter.sort === 'last-activity';
  const found: ThreadSummary[] = [];
  try {
    for await (const execution of temporal.workflow.list({ query: threadListQuery(filter) })) {
      const attributes = execution.typedSearchAttributes;
      found.push({
        threadId: execution.workflowId,
        agent: attributes.get(AgentNameAttribute) ?? null,
        resourceId: attributes.get(AgentResourceAttribute) ?? null,
        status: attributes.get(AgentStatusAttribute) ?? null,
        lastActivity: attributes.get(AgentLastActivityAttribute) ?? null,
        startTime: execution.startTime,
        open: execution.status.name === 'RUNNING',
      });
      if (!byActivity && found.length >= limit) break;
    }
  } catch (error) {
    throw searchAttributesMissing(error, temporal.options.namespace) ?? error;
  }
  if (!byActivity) return found;
  // Oldest activity first; threads without the attribute (older than it) before all others.
  const time = (thread: ThreadSummary) => thread.lastActivity?.getTime() ?? -Infinity;
  return found.sort((a, b) => time(a) - time(b)).slice(0, limit);
}
