// What the workers answer when a run asks them to verify a decision's proof (the `verifyDecision` local activity).
import type { ApprovalDecision } from './run-types';

/** The decision to verify and the execution it was sent to (the proof names both). */
export interface VerifyDecisionRequest {
  workflowId: string;
  decision: ApprovalDecision;
}

/**
 * The workers' answer, recorded as the local activity's marker: a valid proof with the decider it
 * names (the decision's `decidedBy` from then on) and the key that signed it, or why it is not valid.
 * Never a key: only its id.
 */
export type DecisionVerdict = { valid: true; decidedBy: string; keyId: string } | { valid: false; reason: string };
