// One approval as its own page shows it: the request (pending, or as the run's event log recorded it), its decision, and its step's other calls.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client';
import type { Message } from '../protocol/messages';
import { conversationQuery, statusQuery } from '../protocol/run-messages';
import { findEvent } from '../client/event-scan';
import type { ApprovalOutcome, ApprovalRequest } from '../protocol/run-types';
import { listedRun, type ListedRun } from './console-reads';

/** How long a query may take before the page shows the approval without it. */
const QUERY_WAIT_MS = 4_000;
/** The conversation messages before a pending call that its page shows. */
const CONTEXT_MESSAGES = 6;

/** How a call was decided, as the run's event log has it. */
export interface RecordedDecision {
  outcome: ApprovalOutcome;
  decidedBy: string | null;
  reason: string | null;
  /** The door the decision came through (`console`, `mcp`, ...), null when it named none. */
  via: string | null;
}

/** An approval's page: the request, whether it still waits, how it was decided, and the other pending calls of its step. */
export interface ApprovalView {
  run: ListedRun;
  approval: ApprovalRequest;
  pending: boolean;
  decision: RecordedDecision | null;
  /** The step's other calls that still wait (decided together with this one, or one by one). */
  stepmates: ApprovalRequest[];
  conversation: Message[];
}

/**
 * Reads one approval of a run. Null when the run does not exist or names no such approval (or,
 * for a decided one, no worker answers the run's event query).
 */
export async function readApproval(agents: AgentClient, workflowId: string, approvalId: string): Promise<ApprovalView | null> {
  const handle = agents.temporal.workflow.getHandle(workflowId);
  const description = await handle.describe().catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  });
  if (!description) return null;
  const run = listedRun(description);
  const ask = <T>(read: () => Promise<T>) => agents.temporal.withDeadline(Date.now() + QUERY_WAIT_MS, read).catch(() => null);
  const status = run.open ? await ask(() => handle.query(statusQuery)) : null;
  const pending = status?.pendingApprovals.find((approval) => approval.approvalId === approvalId);
  if (pending) {
    const slice = await ask(() => handle.query(conversationQuery));
    const stepmates = status!.pendingApprovals.filter((approval) => approval.step === pending.step && approval.approvalId !== approvalId);
    return { run, approval: pending, pending: true, decision: null, stepmates, conversation: slice?.messages.slice(-CONTEXT_MESSAGES) ?? [] };
  }
  const recorded = await ask(() => recordedApproval(agents, workflowId, approvalId));
  if (!recorded?.request) return null;
  return { run, approval: recorded.request, pending: false, decision: recorded.decision, stepmates: [], conversation: [] };
}

/** An approval's request and decision from the run's event log (each null when the log has none). */
export async function recordedApproval(
  agents: AgentClient,
  workflowId: string,
  approvalId: string,
): Promise<{ request: ApprovalRequest | null; decision: RecordedDecision | null }> {
  const handle = agents.temporal.workflow.getHandle(workflowId);
  let request: ApprovalRequest | null = null;
  // One scan finds both: the request is logged before its decision.
  const decided = await findEvent(handle, (event) => {
    if (event.type === 'approval-requested' && event.request.approvalId === approvalId) request = event.request;
    return event.type === 'approval-decided' && event.approvalId === approvalId;
  });
  if (decided?.type !== 'approval-decided') return { request, decision: null };
  return { request, decision: { outcome: decided.outcome, decidedBy: decided.decidedBy, reason: decided.reason, via: decided.via ?? null } };
}
