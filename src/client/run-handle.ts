import { Client, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { RunEvent } from '../protocol/run-events';
import type { LiveSnapshot, ModelTextSnapshot } from '../protocol/live-snapshots';
import { liveSnapshots } from './live-snapshot-stream';
import { activityWaits } from './activity-waits';
import { checkedInjectedMessage } from './outgoing-checks';
import { followEvents } from './event-follower';
import { injectMessageSignal, injectMessageUpdate, statusQuery } from '../protocol/run-messages';
import type { AgentRunResult, ApprovalDecision, RunStatus } from '../protocol/run-types';
import { DecisionDelivery, refusalOf, type DecideOptions, type DecisionReceipt } from './decision-delivery';

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
    const run = { workflowId: this.workflowId, temporal: this.temporal, workflow: this.workflow, status: () => this.status() };
    return new DecisionDelivery(run).decide(decision, options);
  }

  /** Approves a gated tool call: `decide` with `decision: 'approve'`. */
  approve(approvalId: string, options: { reason?: string; decidedBy?: string; via?: string } & DecideOptions = {}): Promise<DecisionReceipt> {
    return this.decide({ approvalId, decision: 'approve', reason: options.reason, decidedBy: options.decidedBy, via: options.via }, options);
  }

  /** Rejects a gated tool call with a reason the model sees: `decide` with `decision: 'reject'`. */
  reject(approvalId: string, options: { reason: string; decidedBy?: string; via?: string } & DecideOptions): Promise<DecisionReceipt> {
    return this.decide({ approvalId, decision: 'reject', reason: options.reason, decidedBy: options.decidedBy, via: options.via }, options);
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
   * Heartbeats are read every `pollMs` (default 250) while an activity is open, more often until its
   * first text shows; in between, it waits for the run's history to grow (a long poll).
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
   * finished (or failed, or was cancelled or terminated) and every event was read. Reads the
   * `events` query (queries add nothing to history) each time the run's history grows, waiting for
   * that with Temporal's long poll: a run that waits (for an approval, a message) costs one request
   * about every 20 s. `pollMs` is no longer used (kept so existing calls compile).
   */
  events(options: { cursor?: number; pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    return followEvents(this.temporal, this.workflow, options);
  }
}
