// Decision proofs: an issuer signs who decided what on which approval; a worker checks the signature and that it matches the decision.
import { sign, verify, type KeyObject } from 'node:crypto';
import type { DecisionVerdict, VerifyDecisionRequest } from '../protocol/decision-verdict';
import type { DecisionPublicKeys, DecisionSigningKey } from './decision-keys';

/** What a proof binds: the execution, the approval, the decision, who decided and the reason given. */
export interface DecisionClaims {
  /** The run's (or thread's) workflow id. */
  workflowId: string;
  approvalId: string;
  decision: 'approve' | 'reject';
  /** The decider the issuer authenticated (an API key's principal, a signed-in person). */
  decidedBy: string;
  /** The reason sent with the decision, if any: the model sees it, so it is signed too. */
  reason?: string;
}

/** When a proof is issued and how long it stays valid. */
export interface DecisionProofOptions {
  /** Milliseconds the proof stays valid. Default: one hour (`DEFAULT_PROOF_TTL_MS`). */
  ttlMs?: number;
  /** The issue time (epoch milliseconds). Default: now. */
  now?: number;
}

/**
 * How long a proof is valid by default. A decision sent as a signal while no worker runs the run is
 * verified when one does: a proof that expired by then is refused, and the decider decides again.
 */
export const DEFAULT_PROOF_TTL_MS = 60 * 60_000;

/** How far a proof's issue time may lie ahead of the verifying worker's clock (clocks drift). */
export const PROOF_CLOCK_SKEW_MS = 5 * 60_000;

const PREFIX = 'da1';

/** The signed claims, in a fixed field order. */
interface SignedClaims {
  workflowId: string;
  approvalId: string;
  decision: 'approve' | 'reject';
  decidedBy: string;
  reason: string | null;
  issuedAt: number;
  expiresAt: number;
}

/**
 * Signs a decision: a token (`da1.<key id>.<claims>.<signature>`, Ed25519) that workers holding the
 * key's public half accept as proof that `decidedBy` made this decision on this approval of this
 * run, until it expires. Send it as the decision's `proof`, with the same `decision`, `decidedBy`
 * and `reason`. The token carries no secret: it may be logged and it is recorded in the run's history.
 * @example
 * import { AgentClient, issueDecisionProof, readDecisionSigningKey } from 'durable-agents';
 *
 * const key = readDecisionSigningKey('decision-key.pem')!; // the private key; workers hold its public half
 * const decision = { approvalId: 'step-2.call-1', decision: 'approve' as const, decidedBy: 'ana@example.com' };
 * const proof = issueDecisionProof(key, { workflowId: 'run-42', ...decision });
 * await (await AgentClient.connect()).getRun('run-42').decide({ ...decision, proof });
 */
export function issueDecisionProof(key: DecisionSigningKey, claims: DecisionClaims, options: DecisionProofOptions = {}): string {
  const issuedAt = options.now ?? Date.now();
  const signed: SignedClaims = {
    workflowId: claims.workflowId,
    approvalId: claims.approvalId,
    decision: claims.decision,
    decidedBy: claims.decidedBy,
    reason: claims.reason ?? null,
    issuedAt,
    expiresAt: issuedAt + (options.ttlMs ?? DEFAULT_PROOF_TTL_MS),
  };
  const body = `${PREFIX}.${key.keyId}.${Buffer.from(JSON.stringify(signed)).toString('base64url')}`;
  return `${body}.${sign(null, Buffer.from(body), key.privateKey).toString('base64url')}`;
}

/**
 * Checks a decision's proof against the public keys a worker holds, at `now`: the signature, then
 * that the proof names this execution, approval, decision, decider (when the decision names one)
 * and reason, and that it is valid now. Pure but for the clock it is given; never throws.
 */
export function verifyDecisionProof(keys: DecisionPublicKeys, request: VerifyDecisionRequest, now: number): DecisionVerdict {
  const { decision, workflowId } = request;
  const refuse = (reason: string): DecisionVerdict => ({ valid: false, reason });
  if (decision.proof === undefined)
    return refuse('no proof: this agent requires verified decisions (decide through the gateway, the console or with issueDecisionProof)');
  const parts = decision.proof.split('.');
  if (parts.length !== 4 || parts[0] !== PREFIX)
    return refuse(`the proof is not a decision proof (expected ${PREFIX}.<key id>.<claims>.<signature>)`);
  const [, keyId, encodedClaims, signature] = parts as [string, string, string, string];
  if (keys.size === 0) return refuse('this worker holds no decision public keys (AgentPlugin decisionPublicKeys, `worker --decision-public-key`)');
  const publicKey = keys.get(keyId);
  if (!publicKey) return refuse(`unknown key id '${keyId.slice(0, 32)}' (this worker knows ${[...keys.keys()].join(', ')})`);
  const body = Buffer.from(`${PREFIX}.${keyId}.${encodedClaims}`);
  if (!signatureHolds(body, publicKey, signature)) return refuse(`the proof's signature does not verify with key '${keyId}'`);
  // Signed by a key the workers trust: the claims are the issuer's.
  const claims = readClaims(encodedClaims);
  if (claims === null) return refuse(`the proof's claims are not readable (signed by key '${keyId}')`);
  const mismatch =
    differs('workflow', claims.workflowId, workflowId) ??
    differs('approval', claims.approvalId, decision.approvalId) ??
    differs('decision', claims.decision, decision.decision) ??
    (decision.decidedBy === undefined ? null : differs('decider', claims.decidedBy, decision.decidedBy)) ??
    differs('reason', claims.reason, decision.reason ?? null);
  if (mismatch !== null) return refuse(mismatch);
  if (now >= claims.expiresAt)
    return refuse(`the proof expired at ${new Date(claims.expiresAt).toISOString()} (the worker's clock: ${new Date(now).toISOString()})`);
  if (claims.issuedAt > now + PROOF_CLOCK_SKEW_MS)
    return refuse(`the proof was issued at ${new Date(claims.issuedAt).toISOString()}, ahead of the worker's clock (${new Date(now).toISOString()})`);
  return { valid: true, decidedBy: claims.decidedBy, keyId };
}

function signatureHolds(body: Buffer, publicKey: KeyObject, signature: string): boolean {
  try {
    return verify(null, body, publicKey, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

function readClaims(encoded: string): SignedClaims | null {
  try {
    const claims = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Partial<SignedClaims> | null;
    return claims && typeof claims.issuedAt === 'number' && typeof claims.expiresAt === 'number' && typeof claims.decidedBy === 'string'
      ? (claims as SignedClaims)
      : null;
  } catch {
    return null;
  }
}

function differs(what: string, signed: string | null, sent: string | null): string | null {
  if (signed === sent) return null;
  const show = (value: string | null) => (value === null ? 'none' : JSON.stringify(value.length > 80 ? `${value.slice(0, 79)}…` : value));
  return `the proof is for ${what} ${show(signed)}, not ${show(sent)}`;
}
