import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  DECISION_KEY_VARIABLE,
  DECISION_PUBLIC_KEYS_VARIABLE,
  decisionKeyId,
  decisionSigningKeyFromPem,
  readDecisionPublicKeys,
  readDecisionSigningKey,
} from '../../src/decisions/decision-keys';
import { DEFAULT_PROOF_TTL_MS, issueDecisionProof, PROOF_CLOCK_SKEW_MS, verifyDecisionProof } from '../../src/decisions/decision-proof';
import { unverifiedApprovalRefusal } from '../../src/activities/verified-approvals';
import { ErrorCode } from '../../src/protocol/errors';
import type { ApprovalDecision } from '../../src/protocol/run-types';

/** Decision proofs signed with one Ed25519 key and checked with its public half, as a worker does. */

const folder = mkdtempSync(path.join(os.tmpdir(), 'decision-proof-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function keyPair(name: string) {
  const pair = generateKeyPairSync('ed25519');
  const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const privateFile = path.join(folder, `${name}.pem`);
  const publicFile = path.join(folder, `${name}.pub.pem`);
  writeFileSync(privateFile, privatePem);
  writeFileSync(publicFile, pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  return { privatePem, privateFile, publicFile, signing: decisionSigningKeyFromPem(privatePem, name) };
}

const issuer = keyPair('issuer');
const keys = readDecisionPublicKeys([issuer.publicFile]);
const now = Date.UTC(2026, 4, 1, 10, 0, 0);
const claims = { workflowId: 'run-1', approvalId: 'step-1.call-1', decision: 'approve' as const, decidedBy: 'ana@example.com' };
const proof = issueDecisionProof(issuer.signing, claims, { now });
const sent: ApprovalDecision = { approvalId: 'step-1.call-1', decision: 'approve', decidedBy: 'ana@example.com', proof };

function reasonOf(decision: ApprovalDecision, at = now + 1_000, workflowId = 'run-1'): string {
  const verdict = verifyDecisionProof(keys, { workflowId, decision }, at);
  return verdict.valid ? 'valid' : verdict.reason;
}

describe('issueDecisionProof and verifyDecisionProof', () => {
  it('accepts a proof for the decision it was issued for, naming its decider and key', () => {
    expect(verifyDecisionProof(keys, { workflowId: 'run-1', decision: sent }, now + 1_000)).toEqual({
      valid: true,
      decidedBy: 'ana@example.com',
      keyId: issuer.signing.keyId,
    });
    // A decision without a name of its own takes the proof's.
    const { decidedBy: _decidedBy, ...unnamed } = sent;
    expect(verifyDecisionProof(keys, { workflowId: 'run-1', decision: unnamed }, now)).toMatchObject({ valid: true, decidedBy: 'ana@example.com' });
  });

  it('refuses a decision without a proof, or with something that is not one', () => {
    expect(reasonOf({ ...sent, proof: undefined })).toMatch(/^no proof: this agent requires verified decisions/);
    expect(reasonOf({ ...sent, proof: 'ana says yes' })).toBe('the proof is not a decision proof (expected da1.<key id>.<claims>.<signature>)');
  });

  it('refuses a proof for another run, approval, decision, decider or reason', () => {
    expect(reasonOf(sent, now, 'run-2')).toBe('the proof is for workflow "run-1", not "run-2"');
    expect(reasonOf({ ...sent, approvalId: 'step-1.call-2' })).toBe('the proof is for approval "step-1.call-1", not "step-1.call-2"');
    expect(reasonOf({ ...sent, decision: 'reject' })).toBe('the proof is for decision "approve", not "reject"');
    expect(reasonOf({ ...sent, decidedBy: 'mallory' })).toBe('the proof is for decider "ana@example.com", not "mallory"');
    expect(reasonOf({ ...sent, reason: 'looks fine' })).toBe('the proof is for reason none, not "looks fine"');
  });

  it('refuses a tampered signature or claims, and a key the worker does not know', () => {
    const [prefix, keyId, encoded, signature] = proof.split('.') as [string, string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    expect(reasonOf({ ...sent, proof: [prefix, keyId, encoded, flipped].join('.') })).toBe(
      `the proof's signature does not verify with key '${keyId}'`,
    );
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(encoded, 'base64url').toString()), decidedBy: 'mallory' })).toString(
      'base64url',
    );
    expect(reasonOf({ ...sent, decidedBy: 'mallory', proof: [prefix, keyId, forged, signature].join('.') })).toBe(
      `the proof's signature does not verify with key '${keyId}'`,
    );
    const stranger = keyPair('stranger');
    expect(reasonOf({ ...sent, proof: issueDecisionProof(stranger.signing, claims, { now }) })).toBe(
      `unknown key id '${stranger.signing.keyId}' (this worker knows ${issuer.signing.keyId})`,
    );
    expect(verifyDecisionProof(new Map(), { workflowId: 'run-1', decision: sent }, now)).toMatchObject({
      valid: false,
      reason: expect.stringContaining('this worker holds no decision public keys'),
    });
  });

  it('refuses a proof from its expiry on, and one issued ahead of the worker clock beyond the skew', () => {
    expect(reasonOf(sent, now + DEFAULT_PROOF_TTL_MS - 1)).toBe('valid');
    expect(reasonOf(sent, now + DEFAULT_PROOF_TTL_MS)).toBe(
      "the proof expired at 2026-05-01T11:00:00.000Z (the worker's clock: 2026-05-01T11:00:00.000Z)",
    );
    expect(reasonOf(sent, now - PROOF_CLOCK_SKEW_MS)).toBe('valid');
    expect(reasonOf(sent, now - PROOF_CLOCK_SKEW_MS - 1)).toMatch(/^the proof was issued at 2026-05-01T10:00:00.000Z, ahead of the worker's clock/);
  });

  it('verifies with either key while keys rotate', () => {
    const next = keyPair('next');
    const both = readDecisionPublicKeys([issuer.publicFile, next.publicFile]);
    for (const signing of [issuer.signing, next.signing]) {
      const rotated = issueDecisionProof(signing, claims, { now });
      expect(verifyDecisionProof(both, { workflowId: 'run-1', decision: { ...sent, proof: rotated } }, now)).toMatchObject({
        valid: true,
        keyId: signing.keyId,
      });
    }
  });
});

describe('decision keys', () => {
  it('reads the signing key from a file or the environment, and public keys from files or the environment', () => {
    expect(readDecisionSigningKey(issuer.privateFile, {})?.keyId).toBe(issuer.signing.keyId);
    expect(readDecisionSigningKey(undefined, { [DECISION_KEY_VARIABLE]: issuer.privatePem })?.keyId).toBe(issuer.signing.keyId);
    expect(readDecisionSigningKey(undefined, {})).toBeNull();
    const other = keyPair('other');
    const fromEnvironment = readDecisionPublicKeys(undefined, { [DECISION_PUBLIC_KEYS_VARIABLE]: ` ${issuer.publicFile}, ${other.publicFile} ` });
    expect([...fromEnvironment.keys()].sort()).toEqual([issuer.signing.keyId, other.signing.keyId].sort());
    // A private key file serves as its public half; the id is the same either way.
    expect([...readDecisionPublicKeys([issuer.privateFile], {}).keys()]).toEqual([issuer.signing.keyId]);
    expect(decisionKeyId(keys.get(issuer.signing.keyId)!)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses a missing file, a non-key and a key of another type, naming the file and never showing the key', () => {
    const missing = path.join(folder, 'missing.pem');
    expect(() => readDecisionSigningKey(missing, {})).toThrow(`${missing}: cannot read the decision key file (ENOENT)`);
    const garbage = path.join(folder, 'garbage.pem');
    writeFileSync(garbage, 'not a key');
    expect(() => readDecisionPublicKeys([garbage], {})).toThrow(`${garbage}: not a PEM public key`);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    let error: unknown;
    try {
      readDecisionSigningKey(undefined, { [DECISION_KEY_VARIABLE]: rsa });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: ErrorCode.agentConfigInvalid,
      message: `${DECISION_KEY_VARIABLE}: an rsa key; decision proofs need an Ed25519 key`,
    });
    expect((error as Error).message).not.toContain('PRIVATE KEY');
  });
});

describe('unverifiedApprovalRefusal', () => {
  const call = { id: 'call_1', name: 'deploy', args: {} };
  it('refuses only an approved call without a verified approval, and only on workers that require verification', () => {
    expect(unverifiedApprovalRefusal({ requireVerifiedDecisions: true }, { call, approvalId: 'step-1.call-1' })).toBe(
      "Error: 'deploy' was not run: this deployment requires verified decisions, and approval step-1.call-1 was not verified (the agent needs require_verified_decisions: true; docs/hitl.md).",
    );
    expect(unverifiedApprovalRefusal({ requireVerifiedDecisions: true }, { call, approvalId: 'step-1.call-1', approvalVerified: true })).toBeNull();
    expect(unverifiedApprovalRefusal({ requireVerifiedDecisions: true }, { call })).toBeNull();
    expect(unverifiedApprovalRefusal({}, { call, approvalId: 'step-1.call-1' })).toBeNull();
  });
});
