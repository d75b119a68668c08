// The errors of a decision the run did not apply: refused by its validator, or not verified.
import { AgentRuntimeError, ErrorCode } from './errors';

/**
 * A decision the run refused (code `ApprovalRefused`): unknown, already decided or expired
 * approval id. Thrown by `RunHandle.decide` / `approve` / `reject` when the decision went as an
 * update; nothing changed in the run then, so it is safe to report and move on.
 * @example
 * import { ApprovalRefusedError } from 'durable-agents';
 *
 * try {
 *   await run.approve('step-3.call-1');
 * } catch (error) {
 *   if (error instanceof ApprovalRefusedError) console.warn(`Not applied: ${error.message}`);
 *   else throw error;
 * }
 */
export class ApprovalRefusedError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.approvalRefused, message);
  }
}

/**
 * A decision the run refused because it is not verified (code `DecisionUnverified`): the agent
 * requires verified decisions (`require_verified_decisions`) and the decision carried no proof, or
 * one the workers rejected (bad signature, another approval, decision or decider, expired, an
 * unknown key id). The message says which. Nothing changed: the call still waits for a decision.
 * @example
 * import { DecisionUnverifiedError } from 'durable-agents';
 *
 * try {
 *   await run.decide({ approvalId: 'step-3.call-1', decision: 'approve', decidedBy: 'ana', proof });
 * } catch (error) {
 *   if (error instanceof DecisionUnverifiedError) console.warn(`Refused: ${error.message}`);
 *   else throw error;
 * }
 */
export class DecisionUnverifiedError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.decisionUnverified, message);
  }
}
