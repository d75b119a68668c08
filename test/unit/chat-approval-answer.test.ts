import { describe, expect, it } from '@jest/globals';
import { parseApprovalAnswer } from '../../src/cli/chat/approval-answer';
import { describeApprovalRequest } from '../../src/cli/chat/approval-question';
import type { ApprovalRequest } from '../../src/protocol/run-status-types';

describe('parseApprovalAnswer', () => {
  it('approves only on y, yes or approve alone', () => {
    for (const answer of ['y', 'Y', 'yes', ' YES ', 'approve', 'Approve']) expect(parseApprovalAnswer(answer)).toEqual({ decision: 'approve' });
  });

  it('rejects on n, no or reject, with the words after them as the reason', () => {
    expect(parseApprovalAnswer('n')).toEqual({ decision: 'reject', reason: null });
    expect(parseApprovalAnswer('No')).toEqual({ decision: 'reject', reason: null });
    expect(parseApprovalAnswer('reject: wrong account')).toEqual({ decision: 'reject', reason: 'wrong account' });
    expect(parseApprovalAnswer('no - the list is too long')).toEqual({ decision: 'reject', reason: 'the list is too long' });
    expect(parseApprovalAnswer('n, not today')).toEqual({ decision: 'reject', reason: 'not today' });
  });

  it('decides nothing on an empty line, "ok" or anything not explicit', () => {
    for (const answer of ['', '   ', 'ok', 'OK', 'sure', 'yeah', 'yes please', 'approve it', 'y!', 'nope', 'n/a', 'none', 'noted', 'rejected?'])
      expect(parseApprovalAnswer(answer)).toBeNull();
  });
});

describe('describeApprovalRequest', () => {
  const request: ApprovalRequest = {
    approvalId: 'step-2.call-1',
    toolName: 'send_email',
    callId: 'call_1',
    step: 2,
    args: { to: Array.from({ length: 45 }, (_, index) => `person${index}@example.com`), subject: 'Hello', body: `${'x'.repeat(5000)}\nlast line` },
    injectedArgs: {},
    requestedAt: Date.parse('2026-01-01T10:00:00Z'),
    expiresAt: Date.parse('2026-01-01T11:00:00Z'),
  };

  it('names the tool, shows each argument with the size of long ones, and the deadline', () => {
    const lines = describeApprovalRequest(request, Date.parse('2026-01-01T10:30:00Z'));
    expect(lines[0]).toBe('? send_email wants to run (approval step-2.call-1, step 2)');
    expect(lines).toContain('    subject: "Hello"');
    expect(lines.find((line) => line.startsWith('    to: '))).toMatch(/\[45 items, 1,[0-9]{3} characters; first 240 shown\]$/);
    expect(lines.find((line) => line.startsWith('    body: '))).toMatch(/\[5,010 characters, 2 lines; first 240 shown\]$/);
    expect(lines).toContain('    decide by 2026-01-01T11:00:00.000Z (in 30 min); unanswered by then, the call does not run');
    expect(lines).toContain('    (some values are cut: /full prints every argument whole)');
  });
});
