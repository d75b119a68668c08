// What the console shows, read from Temporal: pending approvals across runs and threads, the run list, one run's page data.
import { visibilityString } from '../client/visibility-quote';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client';
import { readThreadTranscript } from '../client/thread-history';
import { buildTranscript, type Transcript } from '../history/history-view';
import type { ThreadTranscript } from '../history/thread-transcript';
import type { Message } from '../protocol/messages';
import { conversationQuery, statusQuery } from '../protocol/run-messages';
import type { ApprovalRequest, RunStatus } from '../protocol/run-types';
import {
  AgentCostUsdAttribute,
  AgentEvaluationAttribute,
  AgentForkOfAttribute,
  AgentNameAttribute,
  AgentResourceAttribute,
  AgentStatusAttribute,
  AgentVersionAttribute,
} from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';

/** How long a query may take before the console shows the run without it (no worker is running it). */
const QUERY_WAIT_MS = 4_000;
/** The conversation messages before a pending call that the inbox shows. */
const CONTEXT_MESSAGES = 6;

/** A run or thread as visibility lists it. */
export interface ListedRun {
  workflowId: string;
  runId: string;
  kind: 'run' | 'thread';
  agent: string | null;
  /** A named agent's `name@version` (`AgentVersion`): the definition it answers with (a thread: now). */
  agentVersion: string | null;
  /** `AgentStatus` while open (running, awaiting_approval, idle...), else the execution's status (completed, failed...). */
  status: string;
  open: boolean;
  startTime: Date;
  costUsd: number | null;
  forkOf: string | null;
  evaluation: string | null;
  resourceId: string | null;
}

/** One pending approval, with what a person needs to decide it. */
export interface InboxItem {
  run: ListedRun;
  approval: ApprovalRequest;
  /** The last messages of the conversation before the call (empty when the run did not answer). */
  conversation: Message[];
}

/** The inbox: pending approvals, and the runs waiting for one whose worker did not answer. */
export interface Inbox {
  items: InboxItem[];
  unreachable: ListedRun[];
}

/** Which runs the run list shows. */
export interface RunListFilter {
  /** Workflow id prefix or agent name. */
  search?: string;
  /** `AgentStatus` (open runs), or `closed`. */
  status?: string;
  kind?: 'run' | 'thread';
  /** The runs of one evaluation (`AgentEvaluation`): the list an evaluation run's origin links to. */
  evaluation?: string;
  limit?: number;
}

/** Everything a run's page shows. */
export interface RunPageData {
  run: ListedRun;
  transcript: Transcript | null;
  thread: ThreadTranscript | null;
  /** Null when the run is closed or no worker answered. */
  status: RunStatus | null;
  webUiUrl: string | null;
}

const quote = visibilityString;

/** A run as the console lists it, from its visibility record or its description. */
export function listedRun(execution: Omit<WorkflowExecutionInfo, 'raw'>): ListedRun {
  const attributes = execution.typedSearchAttributes;
  const open = execution.status.name === 'RUNNING';
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    kind: execution.type === WireName.agentThreadWorkflow ? 'thread' : 'run',
    agent: attributes.get(AgentNameAttribute) ?? null,
    agentVersion: attributes.get(AgentVersionAttribute) ?? null,
    status: open ? (attributes.get(AgentStatusAttribute) ?? 'running') : execution.status.name.toLowerCase(),
    open,
    startTime: execution.startTime,
    costUsd: attributes.get(AgentCostUsdAttribute) ?? null,
    forkOf: attributes.get(AgentForkOfAttribute) ?? null,
    evaluation: attributes.get(AgentEvaluationAttribute) ?? null,
    resourceId: attributes.get(AgentResourceAttribute) ?? null,
  };
}

/** The visibility query of the run list (values quoted, so a search cannot change the query). */
export function runListQuery(filter: RunListFilter): string {
  const types =
    filter.kind === 'thread'
      ? [WireName.agentThreadWorkflow]
      : filter.kind === 'run'
        ? [WireName.agentRunWorkflow]
        : [WireName.agentRunWorkflow, WireName.agentThreadWorkflow];
  const clauses = [`WorkflowType IN (${types.map(quote).join(', ')})`];
  const search = filter.search?.trim();
  if (search) clauses.push(`(${AgentNameAttribute.name} = ${quote(search)} OR WorkflowId STARTS_WITH ${quote(search)})`);
  if (filter.status === 'closed') clauses.push(`ExecutionStatus != 'Running'`);
  else if (filter.status) clauses.push(`ExecutionStatus = 'Running' AND ${AgentStatusAttribute.name} = ${quote(filter.status)}`);
  if (filter.evaluation) clauses.push(`${AgentEvaluationAttribute.name} = ${quote(filter.evaluation)}`);
  return clauses.join(' AND ');
}

/** Runs and threads, newest first. */
export async function listRuns(agents: AgentClient, filter: RunListFilter = {}): Promise<ListedRun[]> {
  const found: ListedRun[] = [];
  for await (const execution of agents.temporal.workflow.list({ query: runListQuery(filter) })) {
    found.push(listedRun(execution));
    if (found.length >= (filter.limit ?? 100)) break;
  }
  return found;
}

/** Every pending approval across running runs and threads, oldest or newest request first. */
export async function readInbox(agents: AgentClient, order: 'oldest' | 'newest' = 'oldest'): Promise<Inbox> {
  const query = `${AgentStatusAttribute.name} = 'awaiting_approval' AND ExecutionStatus = 'Running'`;
  const runs: ListedRun[] = [];
  for await (const execution of agents.temporal.workflow.list({ query })) runs.push(listedRun(execution));
  const items: InboxItem[] = [];
  const unreachable: ListedRun[] = [];
  await Promise.all(
    runs.map(async (run) => {
      const handle = agents.temporal.workflow.getHandle(run.workflowId);
      const status = await agents.temporal.withDeadline(Date.now() + QUERY_WAIT_MS, () => handle.query(statusQuery)).catch(() => null);
      if (!status) return void unreachable.push(run);
      const slice = await agents.temporal.withDeadline(Date.now() + QUERY_WAIT_MS, () => handle.query(conversationQuery)).catch(() => null);
      const conversation = slice?.messages.slice(-CONTEXT_MESSAGES) ?? [];
      for (const approval of status.pendingApprovals) items.push({ run, approval, conversation });
    }),
  );
  const sign = order === 'oldest' ? 1 : -1;
  items.sort((a, b) => sign * (a.approval.requestedAt - b.approval.requestedAt));
  return { items, unreachable };
}

/** A run's or thread's page: its transcript from the history, and its status while it runs. */
export async function readRunPage(agents: AgentClient, workflowId: string): Promise<RunPageData> {
  const description = await agents.temporal.workflow.getHandle(workflowId).describe();
  const run = listedRun(description);
  const status = run.open
    ? await agents.temporal
        .withDeadline(Date.now() + QUERY_WAIT_MS, () => agents.temporal.workflow.getHandle(workflowId).query(statusQuery))
        .catch(() => null)
    : null;
  const thread = run.kind === 'thread' ? await readThreadTranscript(agents.temporal, workflowId) : null;
  const transcript = run.kind === 'run' ? await buildTranscript(agents.temporal, workflowId) : null;
  return { run, transcript, thread, status, webUiUrl: agents.runUrl(workflowId) };
}

/** A short fingerprint of the inbox (what changed: an approval came or went), for live updates. */
export function inboxFingerprint(inbox: Inbox): string {
  return [...inbox.items.map((item) => `${item.run.workflowId}/${item.approval.approvalId}`), ...inbox.unreachable.map((run) => `?${run.workflowId}`)]
    .sort()
    .join(',');
}
