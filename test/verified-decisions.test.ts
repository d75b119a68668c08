import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunHandle } from '../src/client/agent-client';
import type { AgentConfigInput } from '../src/config/agent-config';
import { decisionSigningKeyFromPem, readDecisionPublicKeys, type DecisionSigningKey } from '../src/decisions/decision-keys';
import { issueDecisionProof } from '../src/decisions/decision-proof';
import { startConsole } from '../src/console/console-server';
import { hashGatewayKey } from '../src/gateway/gateway-access';
import { startGateway, type RunningGateway } from '../src/gateway/gateway-server';
import { ErrorCode } from '../src/protocol/errors';
import type { RunEvent } from '../src/protocol/run-events';
import type { ApprovalDecision } from '../src/protocol/run-types';
import { eventsQuery } from '../src/protocol/run-messages';
import { WireName } from '../src/protocol/wire-names';
import { runCli } from './support/cli-process';
import { recordHistory } from './support/history-recorder';
import { signalWithTemporalCli } from './support/temporal-cli-signal';
import { createTestEnvironment, eventually, type TestEnvironment } from './support/test-env';
import { createTestTools } from './support/test-tools';

/**
 * Verified decisions (issue #43, item 4) against the real dev server and a real worker holding
 * only the public key: an agent with `require_verified_decisions` refuses and records a decision
 * sent with the Temporal CLI under a typed name, keeps waiting, and applies the gateway's decision
 * as the API key's principal; forged, tampered, expired and foreign proofs are refused through the
 * update path with `DecisionUnverified`; an agent without the setting still takes any decision.
 */

const aliceKey = 'alice-key-0123456789abcdef';
const testTools = createTestTools();
const guarded: AgentConfigInput = {
  name: 'guarded-deployer',
  model: 'scripted:deploy',
  tools: ['echo'],
  hitl_tools: ['echo'],
  require_verified_decisions: true,
};
let env: TestEnvironment;
let gateway: RunningGateway;
let signingKey: DecisionSigningKey;
let keyFolder: string;

/** A fresh Ed25519 key pair as PEM files, the way `openssl genpkey` and `openssl pkey -pubout` write them. */
function writeKeyPair(name: string): { privatePem: string; publicFile: string } {
  const pair = generateKeyPairSync('ed25519');
  const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicFile = path.join(keyFolder, `${name}.pub.pem`);
  writeFileSync(publicFile, pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  return { privatePem, publicFile };
}

beforeAll(async () => {
  keyFolder = mkdtempSync(path.join(os.tmpdir(), 'decision-keys-'));
  const issuer = writeKeyPair('gateway');
  signingKey = decisionSigningKeyFromPem(issuer.privatePem, 'gateway key');
  env = await createTestEnvironment({
    tools: testTools.tools,
    scripts: { deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] } },
    // The worker holds the public half only.
    decisionPublicKeys: readDecisionPublicKeys([issuer.publicFile]),
  });
  gateway = await startGateway({
    agents: env.agents,
    access: { keys: [{ principal: 'alice@example.com', sha256: hashGatewayKey(aliceKey), scopes: ['start', 'read', 'approve'] }] },
    host: '127.0.0.1',
    port: 0,
    decisionKey: signingKey,
  });
});

afterAll(async () => {
  await gateway?.close();
  await env?.close();
  if (keyFolder) rmSync(keyFolder, { recursive: true, force: true });
});

/** Starts a run of `config` and waits until its gated call is pending. */
async function gatedRun(config: AgentConfigInput): Promise<{ run: RunHandle; approvalId: string }> {
  const run = await env.agents.startRun({ config, task: 'Deploy the API' });
  const pending = await eventually(async () => (await run.status()).pendingApprovals[0], 60_000);
  expect(pending.toolName).toBe('echo');
  return { run, approvalId: pending.approvalId };
}

/** The run's events so far (the `events` query: queries add nothing to the history). */
async function eventsSoFar(run: RunHandle): Promise<RunEvent[]> {
  return (await run.workflow.query(eventsQuery, 0, 500)).events;
}

/** The run's events of `type`, once there are at least `count` of them. */
async function eventsOf<Type extends RunEvent['type']>(run: RunHandle, type: Type, count: number): Promise<Extract<RunEvent, { type: Type }>[]> {
  return eventually(async () => {
    const found = (await eventsSoFar(run)).filter((event): event is Extract<RunEvent, { type: Type }> => event.type === type);
    return found.length >= count && found;
  }, 60_000);
}

/** `temporal workflow signal` with a decision typed by hand: what anyone with Web UI or CLI access can send. */
async function signalWithCli(workflowId: string, decision: ApprovalDecision): Promise<void> {
  await signalWithTemporalCli(workflowId, WireName.approvalSignal, decision);
}

/** The update path's refusal of `decision`: its code and message. */
async function refusalOf(run: RunHandle, decision: ApprovalDecision): Promise<{ code: string; message: string }> {
  const error = (await run.decide(decision).then(
    () => null,
    (failure: unknown) => failure,
  )) as { code?: string; message: string } | null;
  if (error === null) throw new Error(`the run applied ${JSON.stringify(decision)}`);
  return { code: error.code ?? 'none', message: error.message };
}

describe('an agent that requires verified decisions', () => {
  it('refuses and records a CLI signal with a typed name, keeps waiting, then applies the gateway decision as the key principal', async () => {
    const { run, approvalId } = await gatedRun(guarded);
    await signalWithCli(run.workflowId, { approvalId, decision: 'approve', decidedBy: 'mallory' });
    const [refused] = await eventsOf(run, 'approval-refused', 1);
    expect(refused).toMatchObject({ approvalId, decision: 'approve', claimedBy: 'mallory', reason: expect.stringContaining('no proof') });
    // Still waiting: nothing was decided, the tool has not run.
    const status = await run.status();
    expect(status.pendingApprovals.map((pending) => pending.approvalId)).toEqual([approvalId]);
    expect((await eventsSoFar(run)).some((event) => event.type === 'approval-decided')).toBe(false);
    expect(
      testTools.executions.filter((execution) => execution.tool === 'echo' && (execution.args as { text?: string }).text === 'ship it'),
    ).toHaveLength(0);

    const answer = await fetch(`${gateway.url}/v1/approvals/${run.workflowId}/${approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ outcome: 'approved', decidedBy: 'alice@example.com' });
    const result = await run.result();
    expect(result).toMatchObject({ output: 'Done: ship it', stopReason: 'completed' });
    const [decided] = await eventsOf(run, 'approval-decided', 1);
    expect(decided).toMatchObject({ approvalId, outcome: 'approved', decidedBy: 'alice@example.com' });
    // `history` reads the refusal back from the history alone (the workers' verdict is a marker).
    const history = await runCli(['history', run.workflowId]);
    expect(history.stdout).toContain('✗ ignored by the run: refused as unverified: no proof');
    await recordHistory('verified-decision-signal-refused', run);
  });

  it('refuses forged, tampered, expired and foreign proofs through the update with DecisionUnverified, then applies a valid one', async () => {
    const { run, approvalId } = await gatedRun(guarded);
    const claims = { workflowId: run.workflowId, approvalId, decision: 'approve' as const, decidedBy: 'ana@example.com' };
    const proof = issueDecisionProof(signingKey, claims);
    const tampered = `${proof.slice(0, -4)}${proof.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const expired = issueDecisionProof(signingKey, claims, { now: Date.now() - 2 * 60 * 60_000, ttlMs: 60 * 60_000 });
    const foreign = issueDecisionProof(decisionSigningKeyFromPem(writeKeyPair('unknown').privatePem, 'unknown key'), claims);
    const attempts: Array<[ApprovalDecision, string]> = [
      [{ approvalId, decision: 'approve', decidedBy: 'mallory' }, 'no proof'],
      [{ approvalId, decision: 'approve', decidedBy: 'mallory', proof }, 'decider'],
      [{ approvalId, decision: 'reject', decidedBy: 'ana@example.com', proof }, 'decision'],
      [{ approvalId, decision: 'approve', decidedBy: 'ana@example.com', proof: tampered }, 'signature'],
      [{ approvalId, decision: 'approve', decidedBy: 'ana@example.com', proof: expired }, 'expired'],
      [{ approvalId, decision: 'approve', decidedBy: 'ana@example.com', proof: foreign }, 'unknown key id'],
    ];
    for (const [decision, why] of attempts) {
      const refusal = await refusalOf(run, decision);
      expect(refusal.code).toBe(ErrorCode.decisionUnverified);
      expect(refusal.message).toContain(why);
    }
    const refused = await eventsOf(run, 'approval-refused', attempts.length);
    expect(refused.map((event) => event.claimedBy)).toEqual(attempts.map(([decision]) => decision.decidedBy));
    expect((await run.status()).pendingApprovals).toHaveLength(1);

    // Without a decidedBy of its own, the decision takes the proof's decider.
    const receipt = await run.decide({ approvalId, decision: 'approve', proof });
    expect(receipt).toMatchObject({ delivery: 'update', outcome: 'approved' });
    expect(await run.result()).toMatchObject({ output: 'Done: ship it' });
    const [decided] = await eventsOf(run, 'approval-decided', 1);
    expect(decided).toMatchObject({ outcome: 'approved', decidedBy: 'ana@example.com' });
    await recordHistory('verified-decision-update-refused', run);
  });
});

describe('a thread of an agent that requires verified decisions', () => {
  it('refuses a CLI signal in a turn, keeps the turn waiting, and applies the gateway decision', async () => {
    const thread = env.agents.thread(`verified-thread-${randomUUID().slice(0, 8)}`, { config: guarded });
    const turn = await thread.send('Deploy the API');
    const pending = await eventually(async () => (await thread.run.status()).pendingApprovals[0], 60_000);
    await signalWithCli(thread.threadId, { approvalId: pending.approvalId, decision: 'approve', decidedBy: 'mallory' });
    const [refused] = await eventsOf(thread.run, 'approval-refused', 1);
    expect(refused).toMatchObject({ claimedBy: 'mallory', reason: expect.stringContaining('no proof') });
    expect((await thread.run.status()).pendingApprovals).toHaveLength(1);
    const answer = await fetch(`${gateway.url}/v1/approvals/${thread.threadId}/${pending.approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(answer.status).toBe(200);
    expect(await turn.result()).toMatchObject({ output: 'Done: ship it', stopReason: 'completed' });
    const [decided] = await eventsOf(thread.run, 'approval-decided', 1);
    expect(decided).toMatchObject({ outcome: 'approved', decidedBy: 'alice@example.com' });
    await thread.close();
    await recordHistory('verified-decision-thread', thread.run);
  });
});

describe('the console', () => {
  /** Decides as the console's local user, with the CSRF token its inbox page carries. */
  async function decideInConsole(url: string, workflowId: string, approvalId: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const inbox = await (await fetch(`${url}/`, { headers: { accept: 'text/html' } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(inbox)?.[1];
    if (!csrf) throw new Error('no CSRF token on the inbox page');
    const answer = await fetch(`${url}/runs/${workflowId}/approvals/${approvalId}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ decision: 'approve', csrf }),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  }

  it('signs a decision as the signed-in person with its --decision-key; without one, the run refuses it and keeps waiting', async () => {
    const { run, approvalId } = await gatedRun(guarded);
    const unsigned = await startConsole({ agents: env.agents, host: '127.0.0.1', port: 0, localIdentity: 'ops-lead' });
    const signing = await startConsole({ agents: env.agents, host: '127.0.0.1', port: 0, localIdentity: 'ops-lead', decisionKey: signingKey });
    try {
      const refused = await decideInConsole(unsigned.url, run.workflowId, approvalId);
      expect(refused).toMatchObject({
        status: 403,
        body: { ok: false, code: ErrorCode.decisionUnverified, message: expect.stringContaining('no proof') },
      });
      expect((await run.status()).pendingApprovals).toHaveLength(1);
      const applied = await decideInConsole(signing.url, run.workflowId, approvalId);
      expect(applied).toMatchObject({ status: 200, body: { ok: true, decidedBy: 'ops-lead' } });
      expect(await run.result()).toMatchObject({ output: 'Done: ship it' });
      const [decided] = await eventsOf(run, 'approval-decided', 1);
      expect(decided).toMatchObject({ outcome: 'approved', decidedBy: 'ops-lead' });
    } finally {
      await unsigned.close();
      await signing.close();
    }
  });
});

describe('an agent without the setting', () => {
  it('still applies an unverified CLI signal as the name it carries', async () => {
    const { require_verified_decisions: _required, ...unguarded } = guarded;
    const { run, approvalId } = await gatedRun({ ...unguarded, name: 'plain-deployer' });
    await signalWithCli(run.workflowId, { approvalId, decision: 'approve', decidedBy: 'mallory' });
    expect(await run.result()).toMatchObject({ output: 'Done: ship it' });
    const [decided] = await eventsOf(run, 'approval-decided', 1);
    expect(decided).toMatchObject({ outcome: 'approved', decidedBy: 'mallory' });
    expect((await eventsSoFar(run)).some((event) => event.type === 'approval-refused')).toBe(false);
  });
});

describe('a deployment whose workers require verified decisions', () => {
  let strict: TestEnvironment;
  beforeAll(async () => {
    strict = await createTestEnvironment({
      tools: testTools.tools,
      scripts: { deploy: { replies: [{ toolCalls: [{ name: 'echo', args: { text: 'ship it' } }] }, { text: 'Done: {{tool:echo}}' }] } },
      decisionPublicKeys: readDecisionPublicKeys([path.join(keyFolder, 'gateway.pub.pem')]),
      requireVerifiedDecisions: true,
    });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('runs no call approved without a proof (an agent without the setting), and runs a verified one', async () => {
    const { require_verified_decisions: _required, ...unguarded } = guarded;
    const before = testTools.executions.length;
    const loose = await strict.agents.startRun({ config: { ...unguarded, name: 'loose-deployer' }, task: 'Deploy the API' });
    const pending = await eventually(async () => (await loose.status()).pendingApprovals[0], 60_000);
    await signalWithCli(loose.workflowId, { approvalId: pending.approvalId, decision: 'approve', decidedBy: 'mallory' });
    const result = await loose.result();
    expect(result.output).toContain("Done: Error: 'echo' was not run: this deployment requires verified decisions");
    expect(testTools.executions.length).toBe(before);

    const verified = await strict.agents.startRun({ config: guarded, task: 'Deploy the API' });
    const waiting = await eventually(async () => (await verified.status()).pendingApprovals[0], 60_000);
    const decision = { approvalId: waiting.approvalId, decision: 'approve' as const, decidedBy: 'ana@example.com' };
    await verified.decide({ ...decision, proof: issueDecisionProof(signingKey, { workflowId: verified.workflowId, ...decision }) });
    expect(await verified.result()).toMatchObject({ output: 'Done: ship it' });
    expect(testTools.executions.length).toBe(before + 1);
  });
});
