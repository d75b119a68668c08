import { condition, log, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { ToolCall } from '../shared/messages';
import { approvalSignal, decideApprovalUpdate } from '../shared/run-messages';
import type { ApprovalDecision, ApprovalRecord } from '../shared/run-types';
import { AgentStatusAttribute } from '../shared/search-attributes';
import { splitInjectedArgs } from '../shared/split-injected-args';
import { ApprovalBook } from './approval-book';
import type { EventLog } from './event-log';

/**
 * Human-in-the-loop gating of tool calls. A gated call creates an approval request and waits on a
 * durable timer for the `approval` signal (or the `decideApproval` update): a wait of days costs
 * no worker resources. While anything waits, the run's `AgentStatus` search attribute is
 * `awaiting_approval`, so the Web UI and `temporal workflow list` find it.
 */
export class ApprovalGate {
  readonly book = new ApprovalBook();
  private status: 'running' | 'awaiting_approval' = 'running';

  constructor(
    private readonly events: EventLog,
    private readonly timeoutMs: number,
    private readonly injectedArgNames: readonly string[],
  ) {
    setHandler(approvalSignal, (decision) => {
      const refusal = this.book.refusal(decision, Date.now());
      if (refusal === null) return void this.apply(decision);
      // Nothing lost, nothing changed: the signal stays in the history, the reason in the event log.
      const approvalId = typeof decision?.approvalId === 'string' ? decision.approvalId : '(none)';
      log.warn('Ignored an approval signal', { approvalId, reason: refusal });
      this.events.push({ type: 'approval-ignored', approvalId, reason: refusal });
    });
    setHandler(
      decideApprovalUpdate,
      (decision) => {
        const record = this.apply(decision);
        return { approvalId: record.approvalId, outcome: record.outcome! };
      },
      {
        validator: (decision) => {
          const refusal = this.book.refusal(decision, Date.now());
          if (refusal !== null) throw new Error(refusal);
        },
      },
    );
  }

  /** Waits for a decision on one call, or for its timeout. Several calls wait independently. */
  async awaitDecision(call: ToolCall, step: number, index: number): Promise<ApprovalRecord> {
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
    });
    const { outcome: _outcome, reason: _reason, decidedBy: _decidedBy, decidedAt: _decidedAt, ...request } = record;
    this.events.push({ type: 'approval-requested', request });
    this.syncStatusAttribute();
    const decided = await condition(() => record.outcome !== null, this.timeoutMs);
    if (!decided) {
      this.book.expire(record.approvalId, Date.now());
      this.events.push({ type: 'approval-decided', approvalId: record.approvalId, toolName: record.toolName, outcome: 'timed_out', reason: null, decidedBy: null });
    }
    this.syncStatusAttribute();
    return record;
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
    });
    return record;
  }

  private syncStatusAttribute(): void {
    const next = this.book.pending().length > 0 ? 'awaiting_approval' : 'running';
    if (next === this.status) return;
    this.status = next;
    upsertSearchAttributes([{ key: AgentStatusAttribute, value: next }]);
  }
}
