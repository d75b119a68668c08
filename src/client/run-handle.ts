import { randomUUID } from 'node:crypto';
import {
  Client,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { RunEvent } from '../protocol/run-events';
import type { LiveSnapshot, ModelTextSnapshot } from '../protocol/live-snapshots';
import { liveSnapshots } from './live-snapshot-stream';
import { activityWaits } from './activity-waits';
import { checkedDecision, checkedInjectedMessage } from './outgoing-checks';
import { approvalSignal, decideApprovalUpdate, eventsQuery, injectMessageSignal, injectMessageUpdate, statusQuery } from '../protocol/run-messages';
import { AgentRuntimeError, EmptyMessageError, ErrorCode, InvalidMessageError } from '../protocol/errors';
import { ApprovalRefusedError, DecisionUnverifiedError } from '../protocol/approval-errors';
import type { AgentRunResult, ApprovalDecision, ApprovalOutcome, RunStatus } from '../protocol/run-types';

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

/**
 * A handle on one agent run: its result, status and events, and the ways to steer it (approve or
 * reject gated tool calls, inject messages). Get one from `AgentClient.startRun` or
 * `AgentClient.getRun`; it holds no state of its own, so any number of handles on one run agree.
 * @example
 * const run = agents.getRun('support-42');
 * for await (const event of run.events()) {
 *   if (event.type === 'approval-requested') {
 *     await run.approve(event.request.approvalId, { decidedBy: 'ops@example.com' });
 *   }
 * }
 * const { output, stopReason } = await run.result();
 */
export class RunHandle {
  constructor(
    private readonly temporal: Client,
    readonly workflow: WorkflowHandle,
    /** Link to the run in the Temporal Web UI, when the UI's address is known. */
    readonly webUiUrl: string | null,
  ) {}

  /** The run's workflow id (stable across continue-as-new). */
  get workflowId(): string {
    return this.workflow.workflowId;
  }

  /**
   * Waits for the run to end and returns its result, following continue-as-new. A run that stops
   * on `max_steps`, a budget or an invalid output still completes: check `stopReason`.
   * @throws WorkflowFailedError (from `@temporalio/client`) when the run failed, was cancelled or
   * terminated; its cause's `type` is the stable code (for example `ModelAuthFailed`).
   */
  result(): Promise<AgentRunResult> {
    return this.workflow.result() as Promise<AgentRunResult>;
  }

  /**
   * The run's current status (phase, step, usage, pending approvals, queued messages) through the
   * `status` query: adds nothing to the history, but needs a worker to answer. With it, from a
   * description of the run, what its activities wait for: the hooks running now (`runningHooks`)
   * and the calls a provider billed that `usage` does not count yet (`uncountedSpend`).
   */
  async status(): Promise<RunStatus> {
    const [status, waits] = await Promise.all([
      this.workflow.query(statusQuery),
      // The query's answer stands without it: a description that fails adds nothing.
      this.workflow
        .describe()
        .then((description) => activityWaits(this.temporal, description))
        .catch(() => ({})),
    ]);
    return { ...status, ...waits };
  }

  /**
   * Sends a human decision on a gated tool call and reports what happened. When a worker answers
   * within `waitMs`, the decision goes as the `decideApproval` update, which confirms the outcome
   * or refuses an unknown, decided or expired id (ApprovalRefusedError). Otherwise it goes as the
   * `approval` signal, which is durably recorded and applied when a worker next runs the run.
   *
   * Transient server errors (a restarting server: unavailable, deadline exceeded, "Workflow is
   * busy") are retried with backoff for up to `retryForMs` (default 60 s); the receipt's `retries`
   * says how often and why. Retries never apply a decision twice: the update keeps one id across
   * them (the server answers a repeat with the first outcome), a repeated signal is ignored by the
   * run, and a refusal because an earlier try already landed is reported as that try's outcome.
   * @throws AgentRuntimeError with code `RunNotFound` when no run with this id is running;
   * InvalidMessageError, before sending anything, for a field the run would refuse (a reason over
   * 4,000 characters, an id over 200).
   */
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
        if (error instanceof WorkflowNotFoundError) throw runNotFound(this.workflowId, error);
        const reason = transientServerError(error);
        if (reason === null || Date.now() + delayMs >= giveUpAt) throw error;
        reasons.push(reason);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  private async deliverDecision(decision: ApprovalDecision, updateId: string, waitMs: number, deadline: number): Promise<DecisionReceipt> {
    const workerAnswers = await this.temporal
      .withDeadline(Math.min(deadline, Date.now() + waitMs), () => this.status())
      .then(() => true)
      .catch(() => false);
    if (!workerAnswers) {
      // No answer: no worker, or no server (the connection's own retries hide which until the
      // deadline). Only a server that answers gets the signal; otherwise this try failed.
      const serverAnswers = await this.temporal
        .withDeadline(Math.min(deadline, Date.now() + 1_500), () => this.temporal.workflowService.getSystemInfo({}))
        .then(() => true)
        .catch(() => false);
      if (!serverAnswers) throw Object.assign(new Error('the Temporal server did not answer'), { code: grpcStatus.UNAVAILABLE });
      await this.temporal.withDeadline(deadline, () => this.workflow.signal(approvalSignal, decision));
      return { delivery: 'signal', approvalId: decision.approvalId, outcome: null };
    }
    try {
      const result = await this.temporal.withDeadline(deadline, () =>
        this.workflow.executeUpdate(decideApprovalUpdate, { args: [decision], updateId }),
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
    for (let cursor = 0; ;) {
      const page = await this.workflow.query(eventsQuery, cursor, 500);
      const decided = page.events.find(
        (event) =>
          event.type === 'approval-decided' &&
          event.approvalId === decision.approvalId &&
          event.outcome === expected &&
          event.decidedBy === (decision.decidedBy ?? null),
      );
      if (decided) return expected;
      if (page.events.length === 0 || page.finished) return null;
      cursor = page.nextCursor;
    }
  }

  /** Approves a gated tool call: `decide` with `decision: 'approve'`. */
  approve(approvalId: string, options: { reason?: string; decidedBy?: string } & DecideOptions = {}): Promise<DecisionReceipt> {
    return this.decide({ approvalId, decision: 'approve', reason: options.reason, decidedBy: options.decidedBy }, options);
  }

  /** Rejects a gated tool call with a reason the model sees: `decide` with `decision: 'reject'`. */
  reject(approvalId: string, options: { reason: string; decidedBy?: string } & DecideOptions): Promise<DecisionReceipt> {
    return this.decide({ approvalId, decision: 'reject', reason: options.reason, decidedBy: options.decidedBy }, options);
  }

  /**
   * Pushes a user message into the running run; it joins the conversation before the next model
   * call (FIFO, after the previous step's tool results). Sent as a signal, so it is durable even
   * while no worker runs. @throws EmptyMessageError (blank `text`) or InvalidMessageError (over
   * 100,000 characters) before sending anything.
   */
  async inject(text: string): Promise<void> {
    await this.workflow.signal(injectMessageSignal, checkedInjectedMessage(text));
  }

  /** Like `inject`, as an update: needs a running worker, returns the queue position. */
  async injectAndConfirm(text: string): Promise<{ queued: number }> {
    const message = checkedInjectedMessage(text);
    try {
      return await this.workflow.executeUpdate(injectMessageUpdate, { args: [message] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) throw refusalOf(error);
      throw error;
    }
  }

  /**
   * The answer text of the run's model steps while they stream (real providers stream by default),
   * read from heartbeat details: live, and never recorded in the history. Each item is the whole
   * text so far of one attempt of one step; a retried step starts again with a new attempt.
   */
  async *liveText(options: { pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<ModelTextSnapshot> {
    for await (const snapshot of this.live(options)) if (snapshot.kind === 'model-text') yield snapshot;
  }

  /** Live answer text (as `liveText`) and the progress tool calls report while they run. */
  live(options: { pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<LiveSnapshot> {
    return liveSnapshots(this.temporal, this.workflow, options);
  }

  /**
   * The run's events from `cursor` on, live: yields as they happen and ends when the run has
   * finished (or failed, or was cancelled or terminated) and every event was read. Polls the
   * `events` query (queries add nothing to history); while nothing happens it also checks, about
   * once a second, whether the execution is still open.
   */
  async *events(options: { cursor?: number; pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    let cursor = options.cursor ?? 0;
    const pollMs = options.pollMs ?? 200;
    let lastOpenCheck = Date.now();
    let closed = false;
    while (!options.signal?.aborted) {
      const page = await this.workflow.query(eventsQuery, cursor, 200);
      for (const event of page.events) yield event;
      cursor = page.nextCursor;
      if (page.finished || (closed && page.events.length === 0)) return;
      if (page.events.length > 0) continue;
      if (Date.now() - lastOpenCheck >= 1_000) {
        lastOpenCheck = Date.now();
        // One more query after the close is seen drains what the run logged before it ended.
        closed = (await this.workflow.describe()).status.name !== 'RUNNING';
        if (closed) continue;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

/** A decision for a run the server does not know, or one that has ended (a user error: `RunNotFound`). */
function runNotFound(workflowId: string, error: WorkflowNotFoundError): AgentRuntimeError {
  return new AgentRuntimeError(
    ErrorCode.runNotFound,
    `No running run '${workflowId}' in this namespace to decide on (${error.message}): check the run id, or \`status\` it`,
  );
}

/** The typed error for an update the run's validator refused, by the refusal's stable type. */
function refusalOf(error: WorkflowUpdateFailedError): AgentRuntimeError {
  const type = (error.cause as { type?: string } | undefined)?.type;
  const reason = error.cause?.message ?? error.message;
  if (type === ErrorCode.emptyMessage) return new EmptyMessageError();
  if (type === ErrorCode.invalidMessage) return new InvalidMessageError(reason);
  if (type === ErrorCode.decisionUnverified) return new DecisionUnverifiedError(reason);
  return new ApprovalRefusedError(reason);
}
