import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse as parseYaml } from 'yaml';
import { parseAgentConfig } from '../../src/config/agent-config';
import { matchToolPolicy, toolGate, type ToolPolicyRule } from '../../src/config/tool-policy-rules';
import { AgentConfigError } from '../../src/protocol/errors';

/** Tool policies without a server: which rule decides a call, and which rules the config refuses. */

const overHundred = { properties: { amount: { type: 'number', exclusiveMinimum: 100 } }, required: ['amount'] };
const outsideCompany = { properties: { to: { type: 'string', not: { pattern: '@example\\.com$' } } }, required: ['to'] };

const rules: ToolPolicyRule[] = [
  { tool: 'refund', when: overHundred, action: 'require_approval', reason: 'Refunds over 100 need a second pair of eyes' },
  { tool: 'delete_*', action: 'deny' },
  { tool: 'send_email', when: outsideCompany, action: 'require_approval' },
  { tool: ['lookup_*', 'search'], action: 'allow' },
];

describe('which rule decides a call', () => {
  it('applies a rule whose argument condition holds, and not one whose condition fails', () => {
    expect(matchToolPolicy(rules, 'refund', { amount: 250 })).toEqual({
      rule: 0,
      action: 'require_approval',
      reason: 'Refunds over 100 need a second pair of eyes',
    });
    expect(matchToolPolicy(rules, 'refund', { amount: 100 })).toBeNull();
    expect(matchToolPolicy(rules, 'refund', {})).toBeNull();
  });

  it('matches tool names by glob pattern, case-sensitively, and by any pattern of a list', () => {
    expect(matchToolPolicy(rules, 'delete_user', {})).toMatchObject({ rule: 1, action: 'deny' });
    expect(matchToolPolicy(rules, 'delete_', {})).toMatchObject({ rule: 1 });
    expect(matchToolPolicy(rules, 'Delete_user', {})).toBeNull();
    expect(matchToolPolicy(rules, 'undelete_user', {})).toBeNull();
    expect(matchToolPolicy(rules, 'lookup_order', {})).toMatchObject({ rule: 3, action: 'allow' });
    expect(matchToolPolicy(rules, 'search', {})).toMatchObject({ rule: 3 });
    expect(matchToolPolicy([{ tool: '{refund,charge}', action: 'deny' }], 'charge', {})).toMatchObject({ rule: 0 });
    expect(matchToolPolicy([{ tool: 'github__*', action: 'deny' }], 'github__create_issue', {})).toMatchObject({ rule: 0 });
  });

  it('checks a regex condition: mail outside the domain needs approval, inside it does not', () => {
    expect(matchToolPolicy(rules, 'send_email', { to: 'eve@evil.test' })).toMatchObject({ rule: 2, action: 'require_approval' });
    expect(matchToolPolicy(rules, 'send_email', { to: 'bob@example.com' })).toBeNull();
  });

  it('fails closed when the rule negates the safe case: an amount sent as a string still needs approval', () => {
    const naive: ToolPolicyRule[] = [
      {
        tool: 'refund',
        when: { properties: { amount: { type: 'number', exclusiveMinimum: 100 } }, required: ['amount'] },
        action: 'require_approval',
      },
    ];
    const closed: ToolPolicyRule[] = [
      {
        tool: 'refund',
        when: { not: { properties: { amount: { type: 'number', maximum: 100 } }, required: ['amount'] } },
        action: 'require_approval',
      },
    ];
    expect(matchToolPolicy(naive, 'refund', { amount: '250' })).toBeNull();
    expect(matchToolPolicy(closed, 'refund', { amount: '250' })).toMatchObject({ rule: 0 });
    expect(matchToolPolicy(closed, 'refund', {})).toMatchObject({ rule: 0 });
    expect(matchToolPolicy(closed, 'refund', { amount: 250 })).toMatchObject({ rule: 0 });
    expect(matchToolPolicy(closed, 'refund', { amount: 99 })).toBeNull();
  });

  it('matches an extglob negation: every tool but the lookups', () => {
    const onlyLookups: ToolPolicyRule[] = [{ tool: '!(lookup_*)', action: 'deny' }];
    expect(matchToolPolicy(onlyLookups, 'lookup_order', {})).toBeNull();
    expect(matchToolPolicy(onlyLookups, 'refund', {})).toMatchObject({ action: 'deny' });
  });

  it('lets the first matching rule decide, so a catch-all deny after allow rules makes an allowlist', () => {
    const allowlist: ToolPolicyRule[] = [
      { tool: 'refund', when: { properties: { amount: { maximum: 20 } } }, action: 'allow' },
      { tool: '*', action: 'deny', reason: 'Only small refunds' },
    ];
    expect(matchToolPolicy(allowlist, 'refund', { amount: 15 })).toMatchObject({ rule: 0, action: 'allow' });
    expect(matchToolPolicy(allowlist, 'refund', { amount: 50 })).toEqual({ rule: 1, action: 'deny', reason: 'Only small refunds' });
    expect(matchToolPolicy(allowlist, 'anything.else', {})).toMatchObject({ rule: 1 });
  });

  it('gives a rule without a reason one that names the rule and what it does', () => {
    expect(matchToolPolicy(rules, 'delete_user', {})?.reason).toBe('tool_policies[1]: calls to delete_* are denied');
    expect(matchToolPolicy(rules, 'send_email', { to: 'x@y.test' })?.reason).toBe(
      'tool_policies[2]: calls to send_email with arguments matching its condition need an approval',
    );
  });

  it('treats hitl_tools as a floor: the strictest of the rule and hitl_tools applies', () => {
    const allow = { rule: 0, action: 'allow' as const, reason: '' };
    const deny = { rule: 0, action: 'deny' as const, reason: '' };
    const approval = { rule: 0, action: 'require_approval' as const, reason: '' };
    expect([toolGate(null, false), toolGate(null, true)]).toEqual(['allow', 'require_approval']);
    expect([toolGate(allow, false), toolGate(allow, true)]).toEqual(['allow', 'require_approval']);
    expect([toolGate(approval, false), toolGate(deny, true)]).toEqual(['require_approval', 'deny']);
  });
});

describe('tool_policies in the agent config', () => {
  const base = { name: 'support', tools: ['refund', 'send_email', 'delete_user', 'lookup_order', 'search'] };

  function problemsOf(toolPolicies: unknown, extra: Record<string, unknown> = {}): string[] {
    try {
      parseAgentConfig({ ...base, ...extra, tool_policies: toolPolicies });
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(AgentConfigError);
      return (error as AgentConfigError).problems;
    }
  }

  it('accepts the example of docs/tool-policies.md, whose rules decide as the page says', () => {
    const page = readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'tool-policies.md'), 'utf8');
    const example = parseAgentConfig(parseYaml(/```yaml\n([\s\S]*?)```/.exec(page)![1]!));
    expect(matchToolPolicy(example.tool_policies, 'refund', { amount: 250 })).toMatchObject({
      action: 'require_approval',
      reason: 'Refunds over 100 need a second pair of eyes',
    });
    expect(matchToolPolicy(example.tool_policies, 'refund', { amount: 80 })).toBeNull();
    expect(matchToolPolicy(example.tool_policies, 'delete_account', {})).toMatchObject({ action: 'deny' });
    expect(matchToolPolicy(example.tool_policies, 'send_email', { to: 'eve@elsewhere.test' })).toMatchObject({ action: 'require_approval' });
    expect(matchToolPolicy(example.tool_policies, 'send_email', { to: 'bob@example.com' })).toBeNull();
  });

  it('accepts the rules above and defaults to none', () => {
    expect(parseAgentConfig({ ...base, tool_policies: rules }).tool_policies).toEqual(rules);
    expect(parseAgentConfig(base).tool_policies).toEqual([]);
  });

  it('refuses a condition that is not a valid JSON Schema, naming the rule index and the field', () => {
    expect(problemsOf([{ tool: 'refund', when: { properties: { amount: { exclusiveMinimun: 100 } } }, action: 'deny' }])).toEqual([
      expect.stringMatching(/^tool_policies\.0\.when: is not a valid condition \(a JSON Schema, draft 2020-12\): .*exclusiveMinimun/),
    ]);
    expect(
      problemsOf([
        { tool: 'search', action: 'allow' },
        { tool: 'refund', when: { type: 'numbr' }, action: 'deny' },
      ]),
    ).toEqual([expect.stringMatching(/^tool_policies\.1\.when: /)]);
    expect(problemsOf([{ tool: 'send_email', when: { properties: { to: { format: 'emial' } } }, action: 'deny' }])).toEqual([
      expect.stringMatching(/^tool_policies\.0\.when: .*emial/),
    ]);
    expect(problemsOf([{ tool: 'send_email', when: { properties: { to: { format: 'email' } } }, action: 'deny' }])).toEqual([]);
  });

  it('refuses a bad pattern, a rule that matches none of the tools, and a bad action or field', () => {
    expect(problemsOf([{ tool: 'delete_[user', action: 'deny' }])).toEqual([
      expect.stringMatching(/^tool_policies\.0\.tool: is not a valid glob pattern: Missing closing: "\]"/),
    ]);
    expect(problemsOf([{ tool: 'send email', action: 'deny' }])).toEqual([
      expect.stringMatching(/^tool_policies\.0\.tool: must be a tool name or a glob pattern/),
    ]);
    expect(problemsOf([{ tool: 'refnd', action: 'deny' }])).toEqual([
      "tool_policies.0.tool: 'refnd' matches none of this agent's tools (refund, send_email, delete_user, lookup_order, search)",
    ]);
    expect(problemsOf([{ tool: 'refund', action: 'block' }])).toEqual([expect.stringMatching(/^tool_policies\.0\.action: /)]);
    expect(problemsOf([{ tool: 'refund', action: 'deny', condition: {} }])).toEqual([
      'tool_policies.0.condition: unknown field (known here: tool, when, action, reason)',
    ]);
    expect(problemsOf([{ tool: [], action: 'deny' }])).toEqual([expect.stringMatching(/^tool_policies\.0\.tool: /)]);
  });

  it('does not ask a rule to match a configured tool when skills or MCP servers bring tools of their own', () => {
    expect(problemsOf([{ tool: 'github__*', action: 'deny' }], { mcp_servers: [{ name: 'github', command: 'npx' }] })).toEqual([]);
    expect(problemsOf([{ tool: 'deploy', action: 'require_approval' }], { skill_sources: ['./skills'] })).toEqual([]);
    expect(problemsOf([{ tool: 'read_artifact', action: 'deny' }])).toEqual([]);
  });
});
