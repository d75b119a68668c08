// The deployment-wide rule of verified decisions: workers that require them run no call approved without a verified proof.
import type { ToolCall } from '../protocol/messages';

/** What the tool activities need to know of the rule. */
export interface VerifiedApprovalsDependencies {
  /**
   * Run an approved gated call only when its approval was verified (AgentPlugin's
   * `requireVerifiedDecisions`). Default: false, any approval runs its call.
   */
  requireVerifiedDecisions?: boolean;
}

/**
 * Why this worker does not run `call`, or null when it may: under `requireVerifiedDecisions`, a
 * call whose approval the run did not verify (an agent without `require_verified_decisions`) is
 * not run. The run cannot be told before its decision (the workflow asks no worker about agents
 * that do not require proofs), so the guard stands where the harm would be: at the tool.
 */
export function unverifiedApprovalRefusal(
  dependencies: VerifiedApprovalsDependencies,
  input: { call: ToolCall; approvalId?: string; approvalVerified?: true },
): string | null {
  if (!dependencies.requireVerifiedDecisions || input.approvalId === undefined || input.approvalVerified) return null;
  return `Error: '${input.call.name}' was not run: this deployment requires verified decisions, and approval ${input.approvalId} was not verified (the agent needs require_verified_decisions: true; docs/hitl.md).`;
}
