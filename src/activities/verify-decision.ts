// The local activity a run asks to verify a decision's proof with, on a worker holding the issuers' public keys.
import type { DecisionPublicKeys } from '../decisions/decision-keys';
import { verifyDecisionProof } from '../decisions/decision-proof';
import type { DecisionVerdict, VerifyDecisionRequest } from '../protocol/decision-verdict';

export interface DecisionVerificationDependencies {
  /** The public keys decision proofs are verified with, by key id (AgentPlugin's `decisionPublicKeys`); absent: none. */
  decisionKeys?: DecisionPublicKeys;
}

/**
 * Verifies a decision of an agent with `require_verified_decisions` (`verifyDecisionProof`), with
 * the worker's clock. Run as a local activity: its verdict is a marker in the history, so replay
 * reads the verdict of then and never needs the keys (nor a clock that has moved past the expiry).
 * A refusal is an answer, not a failure: no retry would change it.
 */
export function createVerifyDecision(dependencies: DecisionVerificationDependencies) {
  const keys: DecisionPublicKeys = dependencies.decisionKeys ?? new Map();
  return async function verifyDecision(request: VerifyDecisionRequest): Promise<DecisionVerdict> {
    return verifyDecisionProof(keys, request, Date.now());
  };
}
