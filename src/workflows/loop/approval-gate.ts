import { ApplicationFailure, condition, log, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ToolCall } from '../../protocol/messages';
import { MessageLimits, validateApprovalDecision } from '../../protocol/message-validation';
import { approvalSignal, decideApprovalUpdate, MessageDescription } from '../../protocol/run-messages';
import type { ApprovalDecision, ApprovalRecord, ApprovalRequest } from '../../protocol/run-types';
import type { CallDecider } from '../../protocol/call-deciders';
import { AgentStatusAttribute } from '../../protocol/search-attributes';
import { splitInjectedArgs } from '../../protocol/split-injected-args';
import { ApprovalBook, requestOf } from '../rules/approval-book';
import type { EventLog } from './event-log';
import { refusal, validOrRefuse } from './message-refusal';
import { verifyDecisionOnWorker } from './decision-verification';

/**
 * Human-in-the-loop gating of tool calls. A gated call creates an approval request and waits on a
 * durable timer for the `approval` signal (or the `decideApproval` update): a wait of days costs
 * no worker resources. While anything waits, the run's `AgentStatus` search attribute is
 * `awaiting_approval`, so the Web UI and `temporal workflow list` find it; the timer's summary and
 * the run's current details name the tool, the approval id and the deadline.
 *
 * Every decision is validated field by field (`validateApprovalDecision`) before it can settle
 * anything: a bad signal is ignored and recorded (`approval-ignored`), a bad update refused. An
 * agent with `require_verified_decisions` also has the workers verify the decision's proof: one
 * that fails is refused and recorded (`approval-refused`), and the call keeps waiting.
 */
export class ApprovalGate {
  readonly book = new ApprovalBook();
  private status: 'running' | 'awaiting_approval' = 'running';

  constructor(
    private readonly events: EventLog,
    private readonly timeoutMs: number,
    private readonly injectedArgNames: readonly string[],
    /** Called when the set of pending approvals changed (the run's current details follow). */
    private readonly onPendingChange: (pending: ApprovalRequest[]) => void = () => {},
    /** Whether decisions need a proof the workers verify (`require_verified_decisions`), read when one arrives. */
    private readonly requiresProof: () => boolean = () => false,
  ) {
    setHandler(approvalSignal, (payload) => this.onSignal(payload), { description: MessageDescription.approval });
    setHandler(
      decideApprovalUpdate,
      async (payload) => {
        // The validator refused anything invalid; a replayed update accepted before it checked
        // every field is applied as it was then.
        const checked = validateApprovalDecision(payload);
        const decision = checked.ok ? checked.value : payload;
        const record = this.requiresProof() ? await this.applyVerified(decision) : this.apply(decision);
        return { approvalId: record.approvalId, outcome: record.outcome! };
      },
      {
        description: MessageDescription.decideApproval,
        validator: (payload) => {
          const decision = validOrRefuse(validateApprovalDecision(payload));
          const refused = this.book.refusal(decision, Date.now());
          if (refused !== null) throw refusal('ApprovalRefused', refused);
        },
      },
    );
  }

  private onSignal(payload: unknown): void {
    const now = Date.now();
    const checked = validateApprovalDecision(payload);
    // A well-formed decision may still be refused by the run's approvals (unknown, decided, expired).
    const refused = checked.ok ? this.book.refusal(checked.value, now) : checked.reason;
    if (checked.ok && refused === null && this.requiresProof()) return void this.applyVerifiedSignal(checked.value);
    if (checked.ok && refused === null) return void this.apply(checked.value);
    this.ignore(payload, refused!);
  }

  /** A decision by signal that the workers must verify first: a refusal is already recorded, a late one ignored as usual. */
  private async applyVerifiedSignal(decision: ApprovalDecision): Promise<void> {
    try {
      await this.applyVerified(decision);
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === 'ApprovalRefused') this.ignore(decision, error.message);
      else if (!(error instanceof ApplicationFailure)) throw error;
    }
  }

  /**
   * Applies a decision whose proof the workers verified, as the decider the proof names. A refusal
   * is recorded (`approval-refused`) and thrown (`DecisionUnverified`); a decision that another
   * settled while the workers verified this one is refused as any late one is (`ApprovalRefused`).
   */
  private async applyVerified(decision: ApprovalDecision): Promise<ApprovalRecord> {
    const verdict = await verifyDecisionOnWorker(workflowInfo().workflowId, decision);
    if (!verdict.valid) {
      const claimedBy = decision.decidedBy ?? null;
      log.warn('Refused an unverified decision', { approvalId: decision.approvalId, claimedBy, reason: verdict.reason });
      this.events.push({ type: 'approval-refused', approvalId: decision.approvalId, decision: decision.decision, claimedBy, reason: verdict.reason });
      throw refusal('DecisionUnverified', `decision on ${decision.approvalId} not verified: ${verdict.reason}`);
    }
    const late = this.book.refusal(decision, Date.now());
    if (late !== null) throw refusal('ApprovalRefused', late);
    return this.apply({ ...decision, decidedBy: verdict.decidedBy });
  }

  private ignore(payload: unknown, reason: string): void {
    // Nothing lost, nothing changed: the signal stays in the history, the reason in the event log.
    const rawId = (payload as { approvalId?: unknown } | null)?.approvalId;
    const approvalId = typeof rawId === 'string' ? rawId.slice(0, MessageLimits.approvalId) : '(none)';
    log.warn('Ignored an approval signal', { approvalId, reason });
    this.events.push({ type: 'approval-ignored', approvalId, reason });
  }

  /**
   * Waits for a decision on one call, or for its timeout. Several calls wait independently. The
   * request names what asked for it besides `hitl_tools` (`requiredBy`: the before-tool hook and
   * the tool-policy rule that did) and, for the decider, what the tool does and whether the agent
   * marks it dangerous (`about`).
   */
  async awaitDecision(
    call: ToolCall,
    step: number,
    index: number,
    requiredBy: readonly CallDecider[] = [],
    about: { description?: string | undefined; dangerous?: boolean } = {},
  ): Promise<ApprovalRecord> {
    const { executable, injected } = splitInjectedArgs(call.args, this.injectedArgNames);
    const now = Date.now();
    const record = this.book.request({
      approvalId: `step-${step}.call-${index + 1}`,
      toolName: call.name,
      callId: call.id,
      step,
      args: executable,
      injectedArgs: injected,
      requestedAt: now,
      expiresAt: now + this.timeoutMs,
      ...(requiredBy.length > 0 ? { requiredBy: [...requiredBy] } : {}),
      ...(about.description ? { toolDescription: about.description } : {}),
      ...(about.dangerous ? { dangerous: true as const } : {}),
    });
    const request = requestOf(record);
    this.events.push({ type: 'approval-requested', request });
    this.syncStatus();
    // The timer's summary is what the Web UI shows for the wait.
    const decided = await condition(() => record.outcome !== null, this.timeoutMs, { summary: `awaiting ${describeWait(request)}` });
    if (!decided) {
      this.book.expire(record.approvalId, Date.now());
      this.events.push({
        type: 'approval-decided',
        approvalId: record.approvalId,
        toolName: record.toolName,
        outcome: 'timed_out',
        reason: null,
        decidedBy: null,
        via: null,
      });
    }
    this.syncStatus();
    return record;
  }

  /** Rejects every pending call with `reason` (a thread turn interrupted by a newer message). */
  rejectPending(reason: string, decidedBy: string): void {
    for (const request of this.book.pending()) this.apply({ approvalId: request.approvalId, decision: 'reject', reason, decidedBy });
  }

  private apply(decision: ApprovalDecision): ApprovalRecord {
    const record = this.book.decide(decision, Date.now());
    this.events.push({
      type: 'approval-decided',
      approvalId: record.approvalId,
      toolName: record.toolName,
      outcome: record.outcome!,
      reason: record.reason,
      decidedBy: record.decidedBy,
      via: record.decidedVia ?? null,
    });
    return record;
  }

  /** The `AgentStatus` search attribute (a command, only when it changes) and the current details. */
  private syncStatus(): void {
    const pending = this.book.pending();
    this.onPendingChange(pending);
    const next = pending.length > 0 ? 'awaiting_approval' : 'running';
    if (next === this.status) return;
    this.status = next;
    upsertSearchAttributes([{ key: AgentStatusAttribute, value: next }]);
  }
}

/** "approval of get_weather (step-1.call-1) until 2026-05-01T10:00:00.000Z". */
export function describeWait(request: Pick<ApprovalRequest, 'toolName' | 'approvalId' | 'expiresAt'>): string {
  return `approval of ${request.toolName} (${request.approvalId}) until ${new Date(request.expiresAt).toISOString()}`;
}
