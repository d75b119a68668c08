// Deciding the calls a model made together in one step, at once: all checked first, then decided in call order.
import type { AgentClient } from '../client/agent-client';
import { statusQuery } from '../protocol/run-messages';
import type { ApproverRule } from './console-access';
import { mayDecide } from './console-access';
import { CONFIRMATION_REQUIRED, decideApproval, type ActionResult, type ConsoleDecision } from './console-actions';

/** A decision on several calls of one step (those the page showed: a call that came later is not decided unseen). */
export interface StepDecision extends Omit<ConsoleDecision, 'approvalId'> {
  step: number;
  approvalIds: string[];
}

/**
 * Decides the pending calls of `request.step` that `request.approvalIds` names, in call order.
 * Nothing is decided when the person may not decide one of them, or when one is of a dangerous
 * tool and an approval was not confirmed: a group is decided whole or not at all (as far as the
 * run allows: a call someone else decides meanwhile is reported, the others still go).
 */
export async function decideStep(agents: AgentClient, approvers: readonly ApproverRule[] | undefined, request: StepDecision): Promise<ActionResult> {
  const handle = agents.getRun(request.workflowId);
  const status = await agents.temporal.withDeadline(Date.now() + 5_000, () => handle.workflow.query(statusQuery)).catch(() => null);
  if (!status)
    return {
      ok: false,
      httpStatus: 409,
      message: `No worker answered for ${request.workflowId}: its calls cannot be decided together now. Try again when it runs.`,
    };
  const where = `step ${request.step} of run ${request.workflowId}`;
  const calls = status.pendingApprovals
    .filter((approval) => approval.step === request.step && request.approvalIds.includes(approval.approvalId))
    .sort((a, b) => a.approvalId.localeCompare(b.approvalId, 'en', { numeric: true }));
  if (calls.length === 0) return { ok: false, httpStatus: 404, message: `No call of ${where} waits for a decision any more.` };
  const forbidden = calls.filter((call) => !mayDecide(approvers, request.identity, call.toolName));
  if (forbidden.length > 0)
    return {
      ok: false,
      httpStatus: 403,
      message: `${request.identity} may not decide calls of ${forbidden.map((call) => call.toolName).join(', ')} (the console's approvers rules): nothing in ${where} was decided.`,
    };
  const dangerous = calls.filter((call) => call.dangerous);
  if (request.decision === 'approve' && dangerous.length > 0 && !request.confirmed)
    return {
      ok: false,
      httpStatus: 409,
      code: CONFIRMATION_REQUIRED,
      message: `${dangerous.map((call) => call.toolName).join(', ')} ${dangerous.length === 1 ? 'is' : 'are'} marked dangerous by the agent's config: confirm the approval of ${where} a second time.`,
    };
  const results: Array<{ call: string; result: ActionResult }> = [];
  for (const call of calls) {
    const result = await decideApproval(agents, approvers, { ...request, approvalId: call.approvalId });
    results.push({ call: `${call.toolName} (${call.approvalId})`, result });
  }
  const gone = request.approvalIds.filter((id) => !calls.some((call) => call.approvalId === id));
  const goneNote = gone.length > 0 ? ` Not pending any more: ${gone.join(', ')}.` : '';
  if (results.every(({ result }) => result.ok)) {
    const outcome = request.decision === 'approve' ? 'approved' : 'rejected';
    return {
      ok: true,
      httpStatus: 200,
      message: `${where}: ${results.map(({ call }) => call).join(', ')} ${outcome} by ${request.identity}.${goneNote}`,
      link: `/runs/${encodeURIComponent(request.workflowId)}`,
    };
  }
  const failed = results.find(({ result }) => !result.ok)!.result;
  return { ok: false, httpStatus: failed.httpStatus, message: `${where}: ${results.map(({ result }) => result.message).join(' ')}${goneNote}` };
}
