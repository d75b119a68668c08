// How a decision reaches a run: an update when a worker answers, a signal otherwise, retried across server restarts, never applied twice.
import { randomUUID } from 'node:crypto';
import {
  type Client,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type WorkflowHandle,
} from '@temporalio/client';
import { checkedDecision } from './outgoing-checks';
import { approvalSignal, decideApprovalUpdate } from '../protocol/run-messages';
import { findEvent } from './event-scan';
import { AgentRuntimeError, EmptyMessageError, ErrorCode, InvalidMessageError } from '../protocol/errors';
import { ApprovalRefusedError, DecisionUnverifiedError } from '../protocol/approval-errors';
import type { ApprovalDecision, ApprovalOutcome } from '../protocol/run-types';

/** How a decision reached the run (and, when the server was restarting or busy, the retries on the way). */
export type DecisionReceipt = (
  | { delivery: 'update'; approvalId: string; outcome: ApprovalOutcome }
  /** No worker answered in time: the signal is in the run's history and applies when a worker runs it. */
  | { delivery: 'signal'; approvalId: string; outcome: null }
) & { retries?: DecisionRetries };

/** Transient server errors a decision was retried after (only present when there was one). */
export interface DecisionRetries {
  count: number;
  /** From the first try to the delivery. */
  elapsedMs: number;
  /** Why each retry happened, in order: `server busy`, `server unavailable`, `deadline exceeded`. */
  reasons: string[];
}

/** How `RunHandle.decide` (and `approve` / `reject`) delivers a decision. */
export interface DecideOptions {
  /** How long to wait for a worker to answer before sending a signal instead of an update. Default: 5 s. */
  waitMs?: number;
  /** How long to keep retrying transient server errors (restarts, "Workflow is busy"). Default: 60 s. */
  retryForMs?: number;
}

/** gRPC status codes (from @grpc/grpc-js, which is not a dependency of this package). */
const grpcStatus = { DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, ABORTED: 10, UNAVAILABLE: 14 } as const;

/**
 * Why an error is worth retrying (a restarting or overloaded server), or null when it is not: the
 * gRPC status codes UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED ("Workflow is busy") and
 * ABORTED, FAILED_PRECONDITION for a workflow task being retried, anywhere in the error's causes,
 * and an update whose RPC timed out.
 */
export function transientServerError(error: unknown): string | null {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 6; current = current.cause, depth++) {
    if (current instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return 'deadline exceeded';
    const code = (current as { code?: unknown }).code;
    if (code === grpcStatus.RESOURCE_EXHAUSTED || /workflow is busy/i.test(current.message)) return 'server busy';
    if (code === grpcStatus.UNAVAILABLE) return 'server unavailable';
    if (code === grpcStatus.DEADLINE_EXCEEDED) return 'deadline exceeded';
    if (code === grpcStatus.ABORTED) return 'aborted by the server';
    // The server refuses updates and queries while a workflow task is retried (its third attempt
    // on, after failures or timeouts: a worker stalled or overloaded); they are taken once a
    // worker completes the task.
    if (code === grpcStatus.FAILED_PRECONDITION && /workflow task in failed state/i.test(current.message)) return 'workflow task being retried';
  }
  return null;
}

/** The run a decision goes to: its handle, and the status query that tells whether a worker answers. */
export interface DecisionTarget {
  readonly workflowId: string;
  readonly temporal: Client;
  readonly workflow: WorkflowHandle;
  status(): Promise<unknown>;
}

/** Delivers decisions to one run (`RunHandle.decide` documents the rules). */
export class DecisionDelivery {
  constructor(private readonly run: DecisionTarget) {}

  async decide(decision: ApprovalDecision, options: DecideOptions = {}): Promise<DecisionReceipt> {
    decision = checkedDecision(decision);
    const startedAt = Date.now();
    const giveUpAt = startedAt + (options.retryForMs ?? 60_000);
    const updateId = `decide-${decision.approvalId}-${randomUUID()}`;
    const reasons: string[] = [];
    const withRetries = (receipt: DecisionReceipt): DecisionReceipt =>
      reasons.length === 0 ? receipt : { ...receipt, retries: { count: reasons.length, elapsedMs: Date.now() - startedAt, reasons } };
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 5_000)) {
      // One try may not outlive the retry budget (the connection's own gRPC retries included).
      const tryDeadline = Math.max(Date.now() + 1_000, Math.min(giveUpAt, Date.now() + 10_000));
      try {
        return withRetries(await this.deliverDecision(decision, updateId, options.waitMs ?? 5_000, tryDeadline));
      } catch (error) {
        if (error instanceof ApprovalRefusedError && reasons.length > 0) {
          const landed = await this.recordedDecision(decision).catch(() => null);
          if (landed) return withRetries({ delivery: 'update', approvalId: decision.approvalId, outcome: landed });
        }
        if (error instanceof WorkflowNotFoundError) throw runNotFound(this.run.workflowId, error);
        const reason = transientServerError(error);
        if (reason === null || Date.now() + delayMs >= giveUpAt) throw error;
        reasons.push(reason);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  private async deliverDecision(decision: ApprovalDecision, updateId: string, waitMs: number, deadline: number): Promise<DecisionReceipt> {
    const workerAnswers = await this.run.temporal
      .withDeadline(Math.min(deadline, Date.now() + waitMs), () => this.run.status())
      .then(() => true)
      .catch(() => false);
    if (!workerAnswers) {
      // No answer: no worker, or no server (the connection's own retries hide which until the
      // deadline). Only a server that answers gets the signal; otherwise this try failed.
      const serverAnswers = await this.run.temporal
        .withDeadline(Math.min(deadline, Date.now() + 1_500), () => this.run.temporal.workflowService.getSystemInfo({}))
        .then(() => true)
        .catch(() => false);
      if (!serverAnswers) throw Object.assign(new Error('the Temporal server did not answer'), { code: grpcStatus.UNAVAILABLE });
      // Without its door: nothing answered to tell whether the run's build knows `via` (a build
      // before it refuses the field, and a refused signal would leave the call waiting).
      await this.run.temporal.withDeadline(deadline, () => this.run.workflow.signal(approvalSignal, withoutDoor(decision)));
      return { delivery: 'signal', approvalId: decision.approvalId, outcome: null };
    }
    try {
      return await this.decideByUpdate(decision, updateId, deadline);
    } catch (error) {
      // A run on a build from before doors were recorded refuses `via`: the decision goes again without it.
      if (!(error instanceof InvalidMessageError) || decision.via === undefined || !error.message.includes('via: unknown field')) throw error;
      return this.decideByUpdate(withoutDoor(decision), `${updateId}-without-door`, deadline);
    }
  }

  private async decideByUpdate(decision: ApprovalDecision, updateId: string, deadline: number): Promise<DecisionReceipt> {
    try {
      const result = await this.run.temporal.withDeadline(deadline, () =>
        this.run.workflow.executeUpdate(decideApprovalUpdate, { args: [decision], updateId }),
      );
      return { delivery: 'update', approvalId: result.approvalId, outcome: result.outcome };
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw refusalOf(error);
      throw error;
    }
  }

  /** The outcome the run recorded for this very decision (same id, decision and decider), if any. */
  private async recordedDecision(decision: ApprovalDecision): Promise<ApprovalOutcome | null> {
    const expected = decision.decision === 'approve' ? 'approved' : 'rejected';
    const decided = await findEvent(
      this.run.workflow,
      (event) =>
        event.type === 'approval-decided' &&
        event.approvalId === decision.approvalId &&
        event.outcome === expected &&
        event.decidedBy === (decision.decidedBy ?? null),
    );
    return decided ? expected : null;
  }
}

/** A decision for a run the server does not know, or one that has ended (a user error: `RunNotFound`). */
function runNotFound(workflowId: string, error: WorkflowNotFoundError): AgentRuntimeError {
  return new AgentRuntimeError(
    ErrorCode.runNotFound,
    `No running run '${workflowId}' in this namespace to decide on (${error.message}): check the run id, or \`status\` it`,
  );
}

/** The decision without its door, for a run whose build does not know `via`. */
function withoutDoor(decision: ApprovalDecision): ApprovalDecision {
  const { via: _via, ...rest } = decision;
  return rest;
}

/** The typed error for an update the run's validator refused, by the refusal's stable type. */
export function refusalOf(error: WorkflowUpdateFailedError): AgentRuntimeError {
  const type = (error.cause as { type?: string } | undefined)?.type;
  const reason = error.cause?.message ?? error.message;
  if (type === ErrorCode.emptyMessage) return new EmptyMessageError();
  if (type === ErrorCode.invalidMessage) return new InvalidMessageError(reason);
  if (type === ErrorCode.decisionUnverified) return new DecisionUnverifiedError(reason);
  return new ApprovalRefusedError(reason);
}
