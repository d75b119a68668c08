// Which signals of a run's history the run ignored, and why, read from the history alone.
import { startedRunInput } from './started-input';
import type { temporal } from '@temporalio/proto';
import { parseDuration } from '../config/duration';
import { validateApprovalDecision, validateInjectedMessage, validateSkillBatch } from '../protocol/message-validation';
import type { ModelStepInput, ModelStepResult } from '../protocol/run-types';
import type { DecisionVerdict } from '../protocol/decision-verdict';
import { WireName } from '../protocol/wire-names';
import { waitedForApproval, type GateRules } from './gated-calls';
import { decode, eventTime } from './history-events';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One gated call's approval as the history shows it. */
interface Approval {
  requestedAt: number;
  expiresAt: number;
  outcome: 'approved' | 'rejected' | 'timed out' | null;
  decidedBy: string | null;
}

/**
 * Why the run ignored each signal it received, by the signal's event id; signals it applied are
 * not in the map. A run records an ignored signal only in its event log (the `events` query),
 * so `history` works it out again from the events, by the run's rules: a payload that fails the
 * checks of `src/protocol/message-validation.ts`, and an approval
 * decision for an id that was never requested (yet), was already decided, or had expired; for
 * agents with `require_verified_decisions`, one whose proof the workers refused (their verdict is
 * the `verifyDecision` marker that follows it).
 *
 * What the run did with a valid skills batch (applied, not newer, a gap) is `skillBatchOutcomes`'.
 */
export function ignoredSignals(events: HistoryEvent[]): Map<string, string> {
  const ignored = new Map<string, string>();
  const input = startedRunInput(events);
  if (!input?.config) return ignored;
  const { config } = input;
  const gateRules: GateRules = { config };
  // Histories of any version: older configs may lack fields that have defaults now.
  const timeoutMs = approvalTimeoutMs(config.hitl_timeout);
  const approvals = new Map<string, Approval>();
  const modelSteps = new Map<string, number>();
  // Gated calls of a model reply wait for approval from the workflow task that handles the reply on.
  let requested: string[] = [];
  // Verified decisions (require_verified_decisions) settle on the workers' verdict, a later marker, in arrival order.
  const verified = config.require_verified_decisions === true;
  const awaitingVerdict: Array<{ signalId: string | null; payload: unknown }> = [];
  for (const event of events) {
    const at = eventTime(event);
    const id = String(event.eventId);
    const verdict = verdictOf(event);
    if (verdict) {
      const decision = awaitingVerdict.shift();
      if (decision) judge(decision, verdict, approvals, ignored);
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'modelStep') {
      modelSteps.set(id, decode<ModelStepInput>(scheduled.input?.payloads?.[0])?.step ?? 0);
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const step = completed ? modelSteps.get(String(completed.scheduledEventId)) : undefined;
    if (completed && step !== undefined) {
      const reply = decode<ModelStepResult>(completed.result?.payloads?.[0]);
      (reply?.message?.toolCalls ?? []).forEach((call, index) => {
        if (waitedForApproval(gateRules, call, reply?.hooks?.toolDecisions?.[call.id])) requested.push(`step-${step}.call-${index + 1}`);
      });
      continue;
    }
    if (event.workflowTaskCompletedEventAttributes) {
      for (const approvalId of requested) approvals.set(approvalId, { requestedAt: at, expiresAt: at + timeoutMs, outcome: null, decidedBy: null });
      requested = [];
      continue;
    }
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (update?.name === WireName.decideApprovalUpdate) {
      // An accepted update passed the run's validator: it decided (once verified, where that is required).
      if (verified) awaitingVerdict.push({ signalId: null, payload: decode(update.args?.payloads?.[0]) });
      else settle(approvals, decode(update.args?.payloads?.[0]));
      continue;
    }
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (!signal) continue;
    const payload = decode(signal.input?.payloads?.[0]);
    const reason = signalRefusal(signal.signalName ?? '', payload, at, approvals);
    if (reason) ignored.set(id, reason);
    else if (signal.signalName === WireName.approvalSignal && verified) awaitingVerdict.push({ signalId: id, payload });
    else if (signal.signalName === WireName.approvalSignal) settle(approvals, payload);
  }
  return ignored;
}

/** Why the run ignored this signal, or null when it applied it. */
function signalRefusal(name: string, payload: unknown, at: number, approvals: Map<string, Approval>): string | null {
  if (name === WireName.injectMessageSignal) {
    const checked = validateInjectedMessage(payload);
    return checked.ok ? null : checked.reason;
  }
  if (name === WireName.skillsChangedSignal) {
    const checked = validateSkillBatch(payload);
    return checked.ok ? null : checked.reason;
  }
  if (name !== WireName.approvalSignal) return null;
  const checked = validateApprovalDecision(payload);
  if (!checked.ok) return checked.reason;
  const { approvalId } = checked.value;
  const approval = approvals.get(approvalId);
  if (!approval) return `no approval '${approvalId}' was waiting in the run then`;
  if (approval.outcome === null && at >= approval.expiresAt) approval.outcome = 'timed out';
  if (approval.outcome !== null)
    return `approval '${approvalId}' was already ${approval.outcome}${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}`;
  return null;
}

/** Records a decision the run applied (the first one of an id wins). */
function settle(approvals: Map<string, Approval>, payload: unknown): void {
  const { approvalId, decision, decidedBy } = (payload ?? {}) as { approvalId?: unknown; decision?: unknown; decidedBy?: unknown };
  const approval = approvals.get(approvalId as string);
  if (!approval || approval.outcome !== null) return;
  approval.outcome = decision === 'approve' ? 'approved' : 'rejected';
  approval.decidedBy = typeof decidedBy === 'string' ? decidedBy : null;
}

/** The workers' verdict on a decision's proof, when `event` is the marker of a `verifyDecision` local activity. */
function verdictOf(event: HistoryEvent): DecisionVerdict | null {
  const details = event.markerRecordedEventAttributes?.details;
  if (!details) return null;
  const meta = decode<{ activity_type?: string }>(details['data']?.payloads?.[0]);
  return meta?.activity_type === 'verifyDecision' ? decode<DecisionVerdict>(details['result']?.payloads?.[0]) : null;
}

/** Settles a verified decision as the proof's decider; a refused signal (or one another decision beat) is ignored. */
function judge(
  decision: { signalId: string | null; payload: unknown },
  verdict: DecisionVerdict,
  approvals: Map<string, Approval>,
  ignored: Map<string, string>,
): void {
  const { approvalId } = (decision.payload ?? {}) as { approvalId?: string };
  const approval = approvals.get(approvalId ?? '');
  if (!verdict.valid) {
    if (decision.signalId) ignored.set(decision.signalId, `refused as unverified: ${verdict.reason}`);
    return;
  }
  if (approval?.outcome && decision.signalId) {
    ignored.set(
      decision.signalId,
      `approval '${approvalId}' was already ${approval.outcome}${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}`,
    );
    return;
  }
  settle(approvals, { ...(decision.payload as object), decidedBy: verdict.decidedBy });
}

/** The config's approval timeout in ms (its default, 24h, when the config has none or an unreadable one). */
function approvalTimeoutMs(hitlTimeout: string | undefined): number {
  try {
    return parseDuration(hitlTimeout ?? DEFAULT_APPROVAL_TIMEOUT);
  } catch {
    return parseDuration(DEFAULT_APPROVAL_TIMEOUT);
  }
}

const DEFAULT_APPROVAL_TIMEOUT = '24h';
