import type { ApprovalDecision, ApprovalOutcome, ApprovalRecord, ApprovalRequest } from '../../protocol/run-types';

/**
 * The approvals of one run: requests, decisions and expiries. Pure, so its rules (first decision
 * wins, nothing after expiry, unknown ids refused) are unit-tested without a server.
 */
export class ApprovalBook {
  private readonly records = new Map<string, ApprovalRecord>();

  request(request: ApprovalRequest): ApprovalRecord {
    const record: ApprovalRecord = { ...request, outcome: null, reason: null, decidedBy: null, decidedAt: null, decidedVia: null };
    this.records.set(request.approvalId, record);
    return record;
  }

  get(approvalId: string): ApprovalRecord | undefined {
    return this.records.get(approvalId);
  }

  pending(): ApprovalRequest[] {
    return [...this.records.values()].filter((record) => record.outcome === null).map(requestOf);
  }

  /** Why a decision cannot be applied, or null when it can. Accepts any payload (signals are untyped). */
  refusal(decision: unknown, now: number): string | null {
    if (!decision || typeof decision !== 'object') return 'the payload must be an object with approvalId and decision';
    const { approvalId, decision: verdict } = decision as Partial<ApprovalDecision>;
    if (typeof approvalId !== 'string') return 'approvalId is missing';
    if (verdict !== 'approve' && verdict !== 'reject') return `decision must be "approve" or "reject", not ${JSON.stringify(verdict)}`;
    const record = this.records.get(approvalId);
    if (!record)
      return `no approval '${approvalId}' in this run (pending: ${
        this.pending()
          .map((request) => request.approvalId)
          .join(', ') || 'none'
      })`;
    if (record.outcome !== null)
      return `approval '${approvalId}' was already ${record.outcome}${record.decidedBy ? ` by ${record.decidedBy}` : ''}${record.decidedVia ? ` via ${record.decidedVia}` : ''}`;
    if (now >= record.expiresAt) return `approval '${approvalId}' expired at ${new Date(record.expiresAt).toISOString()}`;
    return null;
  }

  /** Applies a decision that `refusal` accepted. */
  decide(decision: ApprovalDecision, now: number): ApprovalRecord {
    return this.settle(
      decision.approvalId,
      decision.decision === 'approve' ? 'approved' : 'rejected',
      now,
      decision.reason ?? null,
      decision.decidedBy ?? null,
      decision.via ?? null,
    );
  }

  expire(approvalId: string, now: number): ApprovalRecord {
    return this.settle(approvalId, 'timed_out', now, null, null, null);
  }

  private settle(
    approvalId: string,
    outcome: ApprovalOutcome,
    now: number,
    reason: string | null,
    decidedBy: string | null,
    decidedVia: string | null,
  ): ApprovalRecord {
    const record = this.records.get(approvalId);
    if (!record) throw new Error(`unknown approval ${approvalId}`);
    Object.assign(record, { outcome, reason, decidedBy, decidedAt: now, decidedVia });
    return record;
  }
}

/** The request an approval record was made from (its decision fields left out). */
export function requestOf(record: ApprovalRecord): ApprovalRequest {
  const { outcome: _outcome, reason: _reason, decidedBy: _decidedBy, decidedAt: _decidedAt, decidedVia: _decidedVia, ...request } = record;
  return request;
}
