// What the console shows, read from Temporal: pending approvals across runs and threads, the run list, one run's page data.
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
import { runListQuery, type RunListFilter } from './run-list-query';

export { runListQuery, type RunListFilter } from './run-list-query';

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
  /** Null while open. */
  closeTime: Date | null;
  /** The run's parent, for a sub-agent (a child workflow). */
  parent: string | null;
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

/** Everything a run's page shows. */
export interface RunPageData {
  run: ListedRun;
  transcript: Transcript | null;
  thread: ThreadTranscript | null;
  /** Null when the run is closed or no worker answered. */
  status: RunStatus | null;
  webUiUrl: string | null;
  /** Open sub-agents that wait for a decision now, by workflow id: the tools they wait to call. */
  waitingChildren: Map<string, string[]>;
}

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
    closeTime: open ? null : (execution.closeTime ?? null),
    parent: execution.parentExecution?.workflowId ?? null,
    costUsd: attributes.get(AgentCostUsdAttribute) ?? null,
    forkOf: attributes.get(AgentForkOfAttribute) ?? null,
    evaluation: attributes.get(AgentEvaluationAttribute) ?? null,
    resourceId: attributes.get(AgentResourceAttribute) ?? null,
  };
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

/** A run's or thread's page: its transcript from the history, its status while it runs, and which of its sub-agents wait for a decision. */
export async function readRunPage(agents: AgentClient, workflowId: string): Promise<RunPageData> {
  const description = await agents.temporal.workflow.getHandle(workflowId).describe();
  const run = listedRun(description);
  const status = run.open ? await queryStatus(agents, workflowId) : null;
  const thread = run.kind === 'thread' ? await readThreadTranscript(agents.temporal, workflowId) : null;
  const transcript = run.kind === 'run' ? await buildTranscript(agents.temporal, workflowId) : null;
  const entries = transcript?.entries ?? thread?.turns.flatMap((turn) => turn.entries) ?? [];
  const openChildren = run.open
    ? entries.flatMap((entry) => (entry.kind === 'child' && (entry.status === 'running' || entry.status === 'starting') ? [entry.workflowId] : []))
    : [];
  return { run, transcript, thread, status, webUiUrl: agents.runUrl(workflowId), waitingChildren: await waitingChildren(agents, openChildren) };
}

/** A run's `status` query, or null when no worker answers in time. */
function queryStatus(agents: AgentClient, workflowId: string): Promise<RunStatus | null> {
  return agents.temporal
    .withDeadline(Date.now() + QUERY_WAIT_MS, () => agents.temporal.workflow.getHandle(workflowId).query(statusQuery))
    .catch(() => null);
}

/** Which of these sub-agents wait for a decision (their `AgentStatus`), with the tools they wait to call (their status query, when a worker answers). */
async function waitingChildren(agents: AgentClient, workflowIds: string[]): Promise<Map<string, string[]>> {
  const waiting = new Map<string, string[]>();
  await Promise.all(
    workflowIds.slice(0, 20).map(async (workflowId) => {
      const child = await agents.temporal.workflow
        .getHandle(workflowId)
        .describe()
        .catch(() => null);
      if (!child || child.status.name !== 'RUNNING' || child.typedSearchAttributes.get(AgentStatusAttribute) !== 'awaiting_approval') return;
      const status = await queryStatus(agents, workflowId);
      waiting.set(workflowId, status?.pendingApprovals.map((approval) => approval.toolName) ?? []);
    }),
  );
  return waiting;
}

/** A short fingerprint of the inbox (what changed: an approval came or went), for live updates. */
export function inboxFingerprint(inbox: Inbox): string {
  return [...inbox.items.map((item) => `${item.run.workflowId}/${item.approval.approvalId}`), ...inbox.unreachable.map((run) => `?${run.workflowId}`)]
    .sort()
    .join(',');
}
