import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { assertAccessFitsHost, isLoopbackHost, mayDecide, readConsoleAccess } from '../../src/console/console-access';
import { runListQuery } from '../../src/console/console-reads';
import { AgentConfigError } from '../../src/protocol/errors';
import { runCli } from '../support/cli-process';

/** The console's access rules (who signs in, who decides which tool) and its visibility query, without a browser. */

const folder = mkdtempSync(path.join(os.tmpdir(), 'console-access-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function accessFile(name: string, text: string): string {
  const file = path.join(folder, name);
  writeFileSync(file, text);
  return file;
}

describe('console access', () => {
  it('reads tokens, a trusted header and approver rules from a YAML file', () => {
    const file = accessFile(
      'ok.yaml',
      'tokens:\n  - identity: alice@example.com\n    token: aaaaaaaaaaaaaaaaaaaa\ntrusted_header: X-Forwarded-User\napprovers:\n  - tools: [refund_*]\n    identities: ["*@finance.example.com"]\n',
    );
    expect(readConsoleAccess(file)).toEqual({
      tokens: [{ identity: 'alice@example.com', token: 'aaaaaaaaaaaaaaaaaaaa' }],
      trustedHeader: 'X-Forwarded-User',
      approvers: [{ tools: ['refund_*'], identities: ['*@finance.example.com'] }],
    });
  });

  it('names the file and each invalid field', () => {
    const file = accessFile('bad.yaml', 'tokens:\n  - identity: bob\n    token: short\ntrusted_header: "X Bad"\nextra: 1\n');
    let error: unknown;
    try {
      readConsoleAccess(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentConfigError);
    const problems = (error as AgentConfigError).problems.join('\n');
    expect(problems).toContain(`${file}: tokens.0.token: must be at least 16 characters`);
    expect(problems).toContain(`${file}: trusted_header: must be a header name`);
    expect(problems).toContain('extra');
  });

  it('lets only the matching identities decide a governed tool, and anyone decide the others', () => {
    const rules = [{ tools: ['refund_*', 'deploy'], identities: ['*@finance.example.com', 'ops-lead'] }];
    expect(mayDecide(rules, 'ann@finance.example.com', 'refund_order')).toBe(true);
    expect(mayDecide(rules, 'ops-lead', 'deploy')).toBe(true);
    expect(mayDecide(rules, 'bob@example.com', 'refund_order')).toBe(false);
    expect(mayDecide(rules, 'bob@example.com', 'search')).toBe(true);
    expect(mayDecide(undefined, 'bob@example.com', 'refund_order')).toBe(true);
  });

  it('refuses a non-loopback host without sign-in, and allows loopback or signed-in consoles', () => {
    expect(['127.0.0.1', 'localhost', '::1'].every(isLoopbackHost)).toBe(true);
    expect(() => assertAccessFitsHost('0.0.0.0', {})).toThrow(AgentConfigError);
    expect(() => assertAccessFitsHost('127.0.0.1', {})).not.toThrow();
    expect(() => assertAccessFitsHost('0.0.0.0', { trustedHeader: 'X-Forwarded-User' })).not.toThrow();
    expect(() => assertAccessFitsHost('10.0.0.5', { tokens: [{ identity: 'a', token: 'a'.repeat(16) }] })).not.toThrow();
  });

  it('quotes searches in the run list query, so a search cannot change it', () => {
    expect(runListQuery({ search: "x' OR '1'='1", status: 'awaiting_approval', kind: 'thread' })).toBe(
      "WorkflowType IN ('agentThread') AND (AgentName = 'x\\' OR \\'1\\'=\\'1' OR WorkflowId STARTS_WITH 'x\\' OR \\'1\\'=\\'1') AND ExecutionStatus = 'Running' AND AgentStatus = 'awaiting_approval'",
    );
    expect(runListQuery({ status: 'closed' })).toBe("WorkflowType IN ('agentRun', 'agentThread') AND ExecutionStatus != 'Running'");
    expect(runListQuery({ evaluation: "eval-1' OR 'x" })).toBe(
      "WorkflowType IN ('agentRun', 'agentThread') AND AgentEvaluation = 'eval-1\\' OR \\'x'",
    );
  });

  it('exits 2 from `console` on a reachable host without sign-in, and on an invalid access file', async () => {
    const open = await runCli(['console', '--host', '0.0.0.0', '--port', '0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('host: 0.0.0.0 is reachable from other machines');
    const invalid = await runCli(['console', '--access', accessFile('cli-bad.yaml', 'approvers:\n  - tools: []\n    identities: [a]\n')]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('approvers.0.tools');
  });
});
