// The console's actions on runs and threads: decide an approval (one decider wins), inject, send, fork, cancel.
import { AgentRuntimeError, ErrorCode } from '../protocol/errors';
import { ApprovalRefusedError } from '../protocol/approval-errors';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import { issueDecisionProof } from '../decisions/decision-proof';
import type { AgentClient } from '../client/agent-client';
import type { ApproverRule } from './console-access';
import { mayDecide } from './console-access';
import { recordedApproval } from './approval-reads';
import { statusQuery } from '../protocol/run-messages';

/** What an action did, for the page (and the HTTP status it answers with). */
export interface ActionResult {
  ok: boolean;
  httpStatus: 200 | 400 | 403 | 404 | 409 | 500;
  message: string;
  /** A page the result points to (a fork, the run). */
  link?: string;
  /** For a decision another person made first: who, and how. */
  decidedBy?: string | null;
  /** ... and through which door (`console`, `mcp`, ...), when the decision named one. */
  decidedVia?: string | null;
  outcome?: string;
  /** The library's error code of a refusal the caller can act on (`DecisionUnverified`). */
  code?: string;
}

/** A person's decision on one gated call, as the console sends it. */
export interface ConsoleDecision {
  workflowId: string;
  approvalId: string;
  decision: 'approve' | 'reject';
  reason: string | undefined;
  /** The signed-in identity: the decision's `decidedBy` (never a name typed into the page). */
  identity: string;
  /** The door the decision comes through (recorded by the run): `console` unless another surface sends it. */
  via?: string;
  /**
   * The key that signs the decision's proof of `identity` (`--decision-key`), for agents with
   * `require_verified_decisions`; absent: the decision goes unsigned, as before.
   */
  signingKey?: DecisionSigningKey;
  /** The person confirmed a second time: needed to approve a call of a tool the agent marks dangerous. */
  confirmed?: boolean;
}

/** The code of a refused approval of a dangerous tool that was not confirmed a second time. */
export const CONFIRMATION_REQUIRED = 'ConfirmationRequired';

/**
 * Decides a gated call as `identity`. The run's `decideApproval` update settles it exactly once:
 * when two people decide at the same time, the run applies the first and refuses the second, who
 * is told who decided and how (read back from the run's event log).
 */
export async function decideApproval(
  agents: AgentClient,
  approvers: readonly ApproverRule[] | undefined,
  request: ConsoleDecision,
): Promise<ActionResult> {
  const handle = agents.getRun(request.workflowId);
  const status = await agents.temporal.withDeadline(Date.now() + 5_000, () => handle.workflow.query(statusQuery)).catch(() => null);
  const pending = status?.pendingApprovals.find((approval) => approval.approvalId === request.approvalId);
  if (status && !pending) return alreadyDecided(agents, request);
  if (pending && !mayDecide(approvers, request.identity, pending.toolName)) {
    return {
      ok: false,
      httpStatus: 403,
      message: `${request.identity} may not decide calls of ${pending.toolName} (the console's approvers rules).`,
    };
  }
  if (pending?.dangerous && request.decision === 'approve' && !request.confirmed) {
    return {
      ok: false,
      httpStatus: 409,
      code: CONFIRMATION_REQUIRED,
      message: `${pending.toolName} is marked dangerous by the agent's config: confirm the approval of ${request.approvalId} in run ${request.workflowId} a second time.`,
    };
  }
  if (!pending && (approvers?.length ?? 0) > 0) {
    // No worker answered: the tool is unknown here, so approver rules cannot be checked.
    return {
      ok: false,
      httpStatus: 409,
      message: `No worker answered for ${request.workflowId}; decisions under approver rules need the run's worker. Try again when it runs.`,
    };
  }
  try {
    const decision = {
      approvalId: request.approvalId,
      decision: request.decision,
      decidedBy: request.identity,
      ...(request.reason ? { reason: request.reason } : {}),
    };
    const via = request.via ?? 'console';
    const proof = request.signingKey ? issueDecisionProof(request.signingKey, { workflowId: request.workflowId, ...decision }) : undefined;
    const receipt = await handle.decide({ ...decision, via, ...(proof ? { proof } : {}) });
    // Named by tool, call and run: one person may have a step-2.call-1 waiting in five runs.
    const call = `${pending?.toolName ?? 'The call'} (${request.approvalId}) in run ${request.workflowId}`;
    const message =
      receipt.delivery === 'update'
        ? `${call}: ${receipt.outcome} by ${request.identity}.`
        : `${call}: no worker is running the run; the decision is recorded and applies when one runs it.`;
    return {
      ok: true,
      httpStatus: 200,
      message,
      link: approvalLink(request.workflowId, request.approvalId),
      decidedBy: request.identity,
      outcome: receipt.outcome ?? request.decision,
    };
  } catch (error) {
    if (error instanceof ApprovalRefusedError) return alreadyDecided(agents, request);
    if (error instanceof AgentRuntimeError && error.code === ErrorCode.decisionUnverified)
      return { ok: false, httpStatus: 403, code: error.code, message: `The run refused the decision: ${error.message}` };
    // The other decision may have let the run finish before this one arrived: then it ended with
    // the call decided, and this person is told by whom, as when the run refuses a second decision.
    if (error instanceof AgentRuntimeError && error.code === ErrorCode.runNotFound) {
      const decided = await alreadyDecided(agents, request);
      if (decided.httpStatus === 409) return decided;
    }
    return failure(error);
  }
}

async function alreadyDecided(agents: AgentClient, request: ConsoleDecision): Promise<ActionResult> {
  const { request: asked, decision: recorded } = await recordedApproval(agents, request.workflowId, request.approvalId).catch(() => ({
    request: null,
    decision: null,
  }));
  if (!recorded)
    return { ok: false, httpStatus: 404, message: `${request.approvalId} is not pending in ${request.workflowId} (unknown or expired).` };
  const who = recorded.decidedBy ?? (recorded.outcome === 'timed_out' ? 'its timeout' : 'someone without a name');
  return {
    ok: false,
    httpStatus: 409,
    message: `Already ${recorded.outcome.replace('_', ' ')} by ${who}${recorded.via ? ` via ${recorded.via}` : ''}${recorded.reason ? ` (${recorded.reason})` : ''}: your decision was not applied (${asked?.toolName ?? 'the call'}, ${request.approvalId} in run ${request.workflowId}).`,
    link: approvalLink(request.workflowId, request.approvalId),
    decidedBy: recorded.decidedBy,
    decidedVia: recorded.via,
    outcome: recorded.outcome,
  };
}

function approvalLink(workflowId: string, approvalId: string): string {
  return `/approvals/${encodeURIComponent(workflowId)}/${encodeURIComponent(approvalId)}`;
}

/** Adds a user message to a running run before its next model call. */
export async function injectMessage(agents: AgentClient, workflowId: string, text: string): Promise<ActionResult> {
  try {
    const { queued } = await agents.getRun(workflowId).injectAndConfirm(text);
    return { ok: true, httpStatus: 200, message: `Message queued for the next model call (${queued} waiting).` };
  } catch (error) {
    return failure(error);
  }
}

/** Sends a message to a thread: it starts a turn, or joins the running one. */
export async function sendToThread(agents: AgentClient, threadId: string, text: string): Promise<ActionResult> {
  try {
    const turn = await agents.thread(threadId).send(text);
    return { ok: true, httpStatus: 200, message: `Message ${turn.receipt.disposition} (turn ${turn.turn}).` };
  } catch (error) {
    return failure(error);
  }
}

/** Forks a run after `fromStep`, optionally with a message the fork adds. */
export async function forkRun(agents: AgentClient, workflowId: string, fromStep: number, message: string | undefined): Promise<ActionResult> {
  try {
    const fork = await agents.fork(workflowId, { fromStep, ...(message ? { task: message } : {}) });
    return {
      ok: true,
      httpStatus: 200,
      message: `Started ${fork.workflowId}, a fork of ${workflowId} after step ${fromStep}.`,
      link: `/runs/${encodeURIComponent(fork.workflowId)}`,
    };
  } catch (error) {
    return failure(error);
  }
}

/** Cancels a run (its workflow), or closes a thread once its turns are done. */
export async function cancelRun(agents: AgentClient, workflowId: string, kind: 'run' | 'thread'): Promise<ActionResult> {
  try {
    if (kind === 'thread') {
      const { turnsCompleted } = await agents.thread(workflowId).close('closed from the console');
      return { ok: true, httpStatus: 200, message: `Thread closing after ${turnsCompleted} turns.` };
    }
    await agents.temporal.workflow.getHandle(workflowId).cancel();
    return { ok: true, httpStatus: 200, message: `Cancellation requested for ${workflowId}.` };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): ActionResult {
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, httpStatus: error instanceof AgentRuntimeError ? 400 : 500, message };
}
