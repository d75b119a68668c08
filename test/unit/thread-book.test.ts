import { describe, expect, it } from '@jest/globals';
import { RECENT_TURNS, ThreadBook } from '../../src/workflows/thread/thread-book';
import type { TurnResult } from '../../src/protocol/thread-types';

const usage = { inputTokens: 0, outputTokens: 0, byModel: {} };

function resultOf(turn: number): TurnResult {
  return {
    turn,
    messageIds: [],
    output: `answer ${turn}`,
    stopReason: 'completed',
    firstStep: turn,
    lastStep: turn,
    usage,
    toolResults: [],
    startedAt: 0,
    completedAt: 0,
  };
}

describe("ThreadBook (a thread's pure bookkeeping)", () => {
  it('starts a turn for a message to an idle thread and queues the ones that follow, numbering their turns for good', () => {
    const book = new ThreadBook('hash');
    expect(book.accept({ messageId: 'a', text: 'A' }, 'enqueue', 0).receipt).toMatchObject({ turn: 1, disposition: 'started' });
    expect(book.accept({ messageId: 'b', text: 'B' }, 'enqueue', 0).receipt).toMatchObject({ turn: 2, disposition: 'queued' });
    book.startNext(1, 0, usage, 0);
    expect(book.accept({ messageId: 'c', text: 'C' }, 'enqueue', 0).receipt).toMatchObject({ turn: 3, disposition: 'queued' });
    book.complete(resultOf(1));
    expect(book.startNext(2, 0, usage, 0)).toMatchObject({ messageId: 'b', turn: 2 });
  });

  it('injects into the running turn, interrupts it, or refuses a reject-policy message while busy', () => {
    const book = new ThreadBook('hash');
    book.accept({ messageId: 'a', text: 'A' }, 'enqueue', 0);
    book.startNext(1, 0, usage, 0);
    expect(book.accept({ messageId: 'i', text: 'I', policy: 'inject' }, 'enqueue', 5)).toMatchObject({
      action: 'inject',
      receipt: { turn: 1, disposition: 'injected', eventCursor: 5 },
    });
    expect(book.current?.messageIds).toEqual(['a', 'i']);
    expect(book.accept({ messageId: 'x', text: 'X', policy: 'interrupt' }, 'enqueue', 0)).toMatchObject({
      action: 'interrupt',
      receipt: { turn: 2, disposition: 'interrupting' },
    });
    expect(book.refusal({ messageId: 'r', text: 'R', policy: 'reject' }, 'enqueue')).toMatchObject({ type: 'ThreadBusy' });
    expect(book.refusal({ messageId: 'r', text: 'R' }, 'reject')).toMatchObject({ type: 'ThreadBusy' });
  });

  it('gives a message id seen before its first receipt, marked duplicate, and adds nothing', () => {
    const book = new ThreadBook('hash');
    const first = book.accept({ messageId: 'a', text: 'A' }, 'enqueue', 0).receipt;
    const again = book.accept({ messageId: 'a', text: 'A' }, 'enqueue', 9);
    expect(again).toEqual({ action: 'none', receipt: { ...first, duplicate: true } });
    expect(book.queued).toHaveLength(1);
    // Even a closed thread answers a resend with the first receipt (nothing is added).
    book.closing = 'done';
    expect(book.refusal({ messageId: 'a', text: 'A' }, 'enqueue')).toBeNull();
    expect(book.refusal({ messageId: 'b', text: 'B' }, 'enqueue')).toMatchObject({ type: 'ThreadClosed' });
  });

  it('answers a message to a closing thread that reopens, withdrawing the close; refuses it in the last moments, saying it reopens', () => {
    const book = new ThreadBook('hash', undefined, true);
    book.accept({ messageId: 'a', text: 'A' }, 'enqueue', 0);
    book.startNext(1, 0, usage, 0);
    book.closing = 'closed on request';
    expect(book.refusal({ messageId: 'b', text: 'B' }, 'enqueue')).toBeNull();
    expect(book.accept({ messageId: 'b', text: 'B' }, 'enqueue', 0)).toMatchObject({
      action: 'queue',
      receipt: { turn: 2, disposition: 'queued' },
      withdrawnClose: 'closed on request',
    });
    expect(book.closing).toBeNull();
    // A resend withdraws nothing (the close asked again stays).
    book.closing = 'again';
    expect(book.accept({ messageId: 'b', text: 'B' }, 'enqueue', 0)).not.toHaveProperty('withdrawnClose');
    expect(book.closing).toBe('again');
    // Closed for good (saving its conversation): refused, marked as reopening with the next execution.
    book.closedReason = 'again';
    expect(book.refusal({ messageId: 'c', text: 'C' }, 'enqueue')).toMatchObject({ type: 'ThreadClosed', reopens: true });
    // A thread that does not reopen refuses while closing, without the mark.
    const refusing = new ThreadBook('hash');
    refusing.closing = 'closed on request';
    expect(refusing.refusal({ messageId: 'c', text: 'C' }, 'enqueue')).toEqual({ type: 'ThreadClosed', reason: expect.any(String) });
  });

  it('refuses a message meant for another config', () => {
    const book = new ThreadBook('hash');
    expect(book.refusal({ messageId: 'a', text: 'A', configHash: 'other' }, 'enqueue')).toMatchObject({ type: 'ThreadConfigMismatch' });
    expect(book.refusal({ messageId: 'a', text: 'A', configHash: 'hash' }, 'enqueue')).toBeNull();
  });

  it('accepts a message whose parsed config hash is the one a thread of an earlier version holds', () => {
    const book = new ThreadBook('parsed-hash');
    expect(book.refusal({ messageId: 'a', text: 'A', configHash: 'written-hash', parsedConfigHash: 'parsed-hash' }, 'enqueue')).toBeNull();
    expect(book.refusal({ messageId: 'a', text: 'A', configHash: 'written-hash', parsedConfigHash: 'another' }, 'enqueue')).toMatchObject({
      type: 'ThreadConfigMismatch',
    });
  });

  it('keeps the newest turn results, and carries its state through continue-as-new', () => {
    const book = new ThreadBook('hash');
    for (let turn = 1; turn <= RECENT_TURNS + 5; turn++) {
      book.accept({ messageId: `m${turn}`, text: 'x' }, 'enqueue', 0);
      book.startNext(turn, 0, usage, 0);
      book.complete(resultOf(turn));
    }
    expect(book.recentTurns).toHaveLength(RECENT_TURNS);
    expect(book.resultOf(1)).toBeUndefined();
    expect(book.resultOf(RECENT_TURNS + 5)?.output).toBe(`answer ${RECENT_TURNS + 5}`);
    const next = new ThreadBook('hash', book.carry());
    expect(next.turnsCompleted).toBe(RECENT_TURNS + 5);
    expect(next.accept({ messageId: 'm3', text: 'x' }, 'enqueue', 0).receipt.duplicate).toBe(true);
    expect(next.accept({ messageId: 'new', text: 'x' }, 'enqueue', 0).receipt.turn).toBe(RECENT_TURNS + 6);
  });

  it('counts the idle timeout from when the wait began, also in the execution a move continued', () => {
    const book = new ThreadBook('hash');
    expect(book.idleTimeLeft(1_000, 60_000)).toBe(60_000);
    // Woken 20 s later (a version check) without a message: the deadline stays.
    expect(book.idleTimeLeft(21_000, 60_000)).toBe(40_000);
    const moved = new ThreadBook('hash', book.carry());
    expect(moved.idleTimeLeft(30_000, 60_000)).toBe(31_000);
    expect(moved.idleTimeLeft(90_000, 60_000)).toBe(1);
    // A message ends the wait: the next wait counts from its own start.
    moved.accept({ messageId: 'a', text: 'A' }, 'enqueue', 0);
    moved.startNext(1, 90_000, usage, 0);
    expect(moved.carry().idleSince).toBeUndefined();
    moved.complete(resultOf(1));
    expect(moved.idleTimeLeft(100_000, 60_000)).toBe(60_000);
  });
});
