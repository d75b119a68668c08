import { describe, expect, it } from '@jest/globals';
import { ApprovalBook } from '../../src/workflows/rules/approval-book';

function bookWithRequest() {
  const book = new ApprovalBook();
  book.request({
    approvalId: 'step-1.call-1',
    toolName: 'deploy',
    callId: 'c1',
    step: 1,
    args: { service: 'api' },
    injectedArgs: {},
    requestedAt: 1_000,
    expiresAt: 61_000,
  });
  return book;
}

describe('approval book', () => {
  it('lets the first decision win and refuses any later one', () => {
    const book = bookWithRequest();
    expect(book.refusal({ approvalId: 'step-1.call-1', decision: 'reject' }, 2_000)).toBeNull();
    book.decide({ approvalId: 'step-1.call-1', decision: 'reject', reason: 'freeze', decidedBy: 'bob' }, 2_000);
    expect(book.refusal({ approvalId: 'step-1.call-1', decision: 'approve' }, 3_000)).toBe("approval 'step-1.call-1' was already rejected by bob");
    expect(book.get('step-1.call-1')).toMatchObject({ outcome: 'rejected', reason: 'freeze', decidedBy: 'bob', decidedAt: 2_000 });
    expect(book.pending()).toEqual([]);
  });

  it('records the door a decision came through and names it to a later decider', () => {
    const book = bookWithRequest();
    book.decide({ approvalId: 'step-1.call-1', decision: 'approve', decidedBy: 'alice', via: 'mcp' }, 2_000);
    expect(book.get('step-1.call-1')).toMatchObject({ outcome: 'approved', decidedBy: 'alice', decidedVia: 'mcp' });
    expect(book.refusal({ approvalId: 'step-1.call-1', decision: 'reject' }, 3_000)).toBe(
      "approval 'step-1.call-1' was already approved by alice via mcp",
    );
    const timedOut = bookWithRequest();
    timedOut.expire('step-1.call-1', 61_000);
    expect(timedOut.get('step-1.call-1')).toMatchObject({ outcome: 'timed_out', decidedBy: null, decidedVia: null });
  });

  it('refuses unknown ids, malformed payloads and decisions at or after expiry', () => {
    const book = bookWithRequest();
    expect(book.refusal({ approvalId: 'step-2.call-1', decision: 'approve' }, 2_000)).toContain(
      "no approval 'step-2.call-1' in this run (pending: step-1.call-1)",
    );
    expect(book.refusal({ approvalId: 'step-1.call-1', decision: 'yes' }, 2_000)).toContain('decision must be "approve" or "reject"');
    expect(book.refusal('approve', 2_000)).toContain('must be an object');
    expect(book.refusal({ decision: 'approve' }, 2_000)).toBe('approvalId is missing');
    expect(book.refusal({ approvalId: 'step-1.call-1', decision: 'approve' }, 61_000)).toContain('expired');
  });

  it('lists only undecided requests as pending, without decision fields', () => {
    const book = bookWithRequest();
    expect(book.pending()).toEqual([
      {
        approvalId: 'step-1.call-1',
        toolName: 'deploy',
        callId: 'c1',
        step: 1,
        args: { service: 'api' },
        injectedArgs: {},
        requestedAt: 1_000,
        expiresAt: 61_000,
      },
    ]);
    book.expire('step-1.call-1', 61_000);
    expect(book.pending()).toEqual([]);
    expect(book.get('step-1.call-1')?.outcome).toBe('timed_out');
  });
});
