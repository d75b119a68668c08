import { describe, expect, it } from '@jest/globals';
import { TextTracker } from '../../src/gateway/streams/text-tracker';

describe('TextTracker', () => {
  it('gives each live snapshot only what it adds, then the rest of the logged answer', () => {
    const tracker = new TextTracker();
    expect(tracker.openId).toBeNull();
    expect(tracker.more('ignored: nothing open')).toBeNull();
    tracker.start(1, 1, 'text-1-1');
    expect(tracker.isOpen(1, 1)).toBe(true);
    expect(tracker.isOpen(1, 2)).toBe(false);
    expect(tracker.more('Hel')).toEqual({ id: 'text-1-1', delta: 'Hel' });
    expect(tracker.more('Hello')).toEqual({ id: 'text-1-1', delta: 'lo' });
    // The same snapshot again (a heartbeat with no new text) adds nothing.
    expect(tracker.more('Hello')).toBeNull();
    expect(tracker.position).toEqual({ step: 1, attempt: 1, chars: 5 });
    expect(tracker.completes(1, 'Hello world')).toBe(true);
    expect(tracker.more('Hello world')).toEqual({ id: 'text-1-1', delta: ' world' });
    expect(tracker.close()).toBe('text-1-1');
    expect(tracker.close()).toBeNull();
    expect(tracker.position).toBeNull();
  });

  it('sends nothing of a snapshot that rewrote what was sent, and takes a different logged answer as a text of its own', () => {
    const tracker = new TextTracker();
    tracker.start(2, 1, 'a');
    tracker.more('Draft one');
    expect(tracker.more('Another, longer draft')).toBeNull();
    expect(tracker.position).toEqual({ step: 2, attempt: 1, chars: 9 });
    expect(tracker.completes(2, 'Final answer')).toBe(false);
    expect(tracker.completes(3, 'Draft one and more')).toBe(false);
    expect(tracker.completes(2, 'Draft one and more')).toBe(true);
  });

  it("continues a client's position by its length alone", () => {
    const tracker = new TextTracker();
    tracker.continueAt(3, 2, 'text-3-2', 4);
    expect(tracker.position).toEqual({ step: 3, attempt: 2, chars: 4 });
    expect(tracker.more('abc')).toBeNull();
    expect(tracker.more('abcdefg')).toEqual({ id: 'text-3-2', delta: 'efg' });
    // The text before the position is unknown: any logged answer at least as long completes it.
    expect(tracker.completes(3, 'xxxxxxxyz')).toBe(true);
    expect(tracker.completes(3, 'short')).toBe(false);
  });

  it('tells a late snapshot of an earlier step from the open one', () => {
    const tracker = new TextTracker();
    expect(tracker.isPast(1)).toBe(false);
    tracker.start(4, 1, 'text-4-1');
    expect(tracker.isPast(3)).toBe(true);
    expect(tracker.isPast(4)).toBe(false);
    expect(tracker.isPast(5)).toBe(false);
  });
});
