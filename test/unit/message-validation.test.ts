import { describe, expect, it } from '@jest/globals';
import {
  validateApprovalDecision,
  validateConversationRequest,
  validateInjectedMessage,
  validateSkillBatch,
} from '../../src/protocol/message-validation';

describe('approval decisions', () => {
  it('accepts a decision with optional fields, and null as absent', () => {
    expect(validateApprovalDecision({ approvalId: 'step-1.call-1', decision: 'approve' })).toEqual({
      ok: true,
      value: { approvalId: 'step-1.call-1', decision: 'approve' },
    });
    expect(validateApprovalDecision({ approvalId: 'step-1.call-1', decision: 'reject', reason: 'no', decidedBy: 'bob' })).toEqual({
      ok: true,
      value: { approvalId: 'step-1.call-1', decision: 'reject', reason: 'no', decidedBy: 'bob' },
    });
    expect(validateApprovalDecision({ approvalId: 'a', decision: 'approve', decidedBy: 'bob', via: 'a2a' })).toEqual({
      ok: true,
      value: { approvalId: 'a', decision: 'approve', decidedBy: 'bob', via: 'a2a' },
    });
    expect(validateApprovalDecision({ approvalId: 'a', decision: 'approve', via: 'door'.repeat(11) })).toEqual({
      ok: false,
      type: 'InvalidMessage',
      reason: 'via: must be at most 40 characters, not 44',
    });
    expect(validateApprovalDecision({ approvalId: 'a', decision: 'approve', reason: null, decidedBy: null })).toEqual({
      ok: true,
      value: { approvalId: 'a', decision: 'approve' },
    });
  });

  it('refuses every wrongly typed, too long or unknown field, naming it', () => {
    const reasonOf = (payload: unknown) => {
      const checked = validateApprovalDecision(payload);
      return checked.ok ? null : `${checked.type}: ${checked.reason}`;
    };
    expect(reasonOf({ approvalId: 'step-1.call-1', decision: 'reject', decidedBy: 42, reason: { x: 1 } })).toBe(
      'InvalidMessage: reason: must be a string, not {"x":1}',
    );
    expect(reasonOf({ approvalId: 'step-1.call-1', decision: 'reject', decidedBy: 42 })).toBe('InvalidMessage: decidedBy: must be a string, not 42');
    expect(reasonOf({ approvalId: 7, decision: 'approve' })).toBe('InvalidMessage: approvalId: must be a string, not 7');
    expect(reasonOf({ approvalId: ' ', decision: 'approve' })).toBe('InvalidMessage: approvalId: must not be empty');
    expect(reasonOf({ approvalId: 'x'.repeat(201), decision: 'approve' })).toBe(
      'InvalidMessage: approvalId: must be at most 200 characters, not 201',
    );
    expect(reasonOf({ approvalId: 'a', decision: 'yes' })).toBe('InvalidMessage: decision: must be "approve" or "reject", not "yes"');
    expect(reasonOf({ approvalId: 'a', decision: 'approve', reason: 'r'.repeat(4_001) })).toBe(
      'InvalidMessage: reason: must be at most 4,000 characters, not 4,001',
    );
    expect(reasonOf({ approvalId: 'a', decision: 'approve', decidedBy: 'd'.repeat(201) })).toBe(
      'InvalidMessage: decidedBy: must be at most 200 characters, not 201',
    );
    expect(reasonOf({ approvalId: 'a', decision: 'approve', decided_by: 'x' })).toBe(
      'InvalidMessage: decided_by: unknown field (expected approvalId, decision, reason, decidedBy, proof, via)',
    );
    expect(reasonOf(null)).toBe('InvalidMessage: a decision must be an object with approvalId and decision, not null');
    expect(reasonOf(['a'])).toBe('InvalidMessage: a decision must be an object with approvalId and decision, not ["a"]');
  });
});

describe('injected messages', () => {
  it('accepts text, refuses blank text as EmptyMessage and anything else as InvalidMessage', () => {
    expect(validateInjectedMessage({ text: 'hello' })).toEqual({ ok: true, value: { text: 'hello' } });
    expect(validateInjectedMessage({ text: '   ' })).toEqual({
      ok: false,
      type: 'EmptyMessage',
      reason: 'text: an injected message must not be empty',
    });
    expect(validateInjectedMessage({ text: 5 })).toEqual({ ok: false, type: 'InvalidMessage', reason: 'text: must be a string, not 5' });
    expect(validateInjectedMessage({ text: 'x'.repeat(100_001) })).toMatchObject({
      ok: false,
      type: 'InvalidMessage',
      reason: 'text: must be at most 100,000 characters, not 100,001',
    });
    expect(validateInjectedMessage({ text: 'hi', role: 'system' })).toMatchObject({ ok: false, reason: 'role: unknown field (expected text)' });
    expect(validateInjectedMessage('hi')).toMatchObject({ ok: false, reason: 'an injected message must be an object { text }, not "hi"' });
  });
});

describe('skills batches', () => {
  const skill = {
    name: 'triage',
    description: 'd',
    usage: 'u',
    allowedTools: ['echo'],
    tools: ['echo'],
    source: '/s',
    file: '/s/triage/SKILL.md',
    contentHash: 'h',
  };
  const batch = {
    source: '/s',
    version: 2,
    previousHash: 'a',
    hash: 'b',
    changes: [{ kind: 'added', skillName: 'triage', skill, source: '/s' }],
    errors: [],
  };

  it('accepts a batch, and one without errors', () => {
    expect(validateSkillBatch(batch)).toEqual({ ok: true, value: batch });
    const { errors: _errors, ...withoutErrors } = batch;
    expect(validateSkillBatch(withoutErrors)).toEqual({ ok: true, value: batch });
    expect(validateSkillBatch({ ...batch, changes: [{ kind: 'removed', skillName: 'triage', skill: null, source: '/s' }] }).ok).toBe(true);
  });

  it('refuses a batch with a wrongly typed field, naming it', () => {
    const reasonOf = (payload: unknown) => {
      const checked = validateSkillBatch(payload);
      return checked.ok ? null : checked.reason;
    };
    expect(reasonOf({ ...batch, source: 3 })).toBe('source: must be a string, not 3');
    expect(reasonOf({ ...batch, version: 0 })).toBe('version: must be a positive integer, not 0');
    expect(reasonOf({ ...batch, version: 1.5 })).toBe('version: must be a positive integer, not 1.5');
    expect(reasonOf({ ...batch, hash: null })).toBe('hash: must be a string, not null');
    expect(reasonOf({ ...batch, changes: 'all' })).toBe('changes: must be an array, not "all"');
    expect(reasonOf({ ...batch, changes: [{ kind: 'renamed', skillName: 'x' }] })).toBe(
      'changes[0].kind: must be "added", "modified" or "removed", not "renamed"',
    );
    expect(reasonOf({ ...batch, changes: [{ kind: 'added', skillName: 'x', skill: { ...skill, tools: 'echo' } }] })).toBe(
      'changes[0].skill.tools: must be an array of strings, not "echo"',
    );
    expect(reasonOf({ ...batch, errors: [{ file: 1 }] })).toBe('errors[0]: must be an object { file, message } of strings, not {"file":1}');
  });
});

describe('conversation requests', () => {
  it('takes no argument, or any subset of the fields, as a request for the default view', () => {
    expect(validateConversationRequest(undefined)).toEqual({ ok: true, value: {} });
    expect(validateConversationRequest(null)).toEqual({ ok: true, value: {} });
    expect(validateConversationRequest({})).toEqual({ ok: true, value: {} });
    expect(validateConversationRequest({ thread: 'planner', epoch: 1, from: 0, count: null })).toEqual({
      ok: true,
      value: { thread: 'planner', epoch: 1, from: 0 },
    });
  });

  it('refuses a request that is not an object, a wrong thread, counts that are not whole numbers, and unknown fields, naming them', () => {
    const reasonOf = (payload: unknown) => {
      const checked = validateConversationRequest(payload);
      return checked.ok ? null : `${checked.type}: ${checked.reason}`;
    };
    expect(reasonOf('executor')).toBe('InvalidMessage: a conversation request must be an object { thread?, epoch?, from?, count? }, not "executor"');
    expect(reasonOf([0])).toBe('InvalidMessage: a conversation request must be an object { thread?, epoch?, from?, count? }, not [0]');
    expect(reasonOf({ thread: 'tools' })).toBe('InvalidMessage: thread: must be "executor" or "planner", not "tools"');
    expect(reasonOf({ epoch: '0' })).toBe('InvalidMessage: epoch: must be a whole number of at least 0, not "0"');
    expect(reasonOf({ from: -1 })).toBe('InvalidMessage: from: must be a whole number of at least 0, not -1');
    expect(reasonOf({ count: 1.5 })).toBe('InvalidMessage: count: must be a whole number of at least 0, not 1.5');
    expect(reasonOf({ epoch: 0, limit: 10 })).toBe('InvalidMessage: limit: unknown field (expected thread, epoch, from, count)');
  });
});
