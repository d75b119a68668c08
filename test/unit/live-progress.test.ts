import { describe, expect, it } from '@jest/globals';
import { LiveProgress } from '../../src/cli/live-progress';

const snapshot = (callId: string, count: number) => ({
  kind: 'tool-progress' as const,
  step: 1,
  callId,
  toolName: 't',
  count,
  latest: { progress: count },
  at: 0,
});

describe('LiveProgress (each progress note shown once)', () => {
  it('shows live notes once, then only the progress events no snapshot showed', () => {
    const progress = new LiveProgress();
    expect(progress.snapshot(snapshot('a', 2))).toBe(true);
    expect(progress.snapshot(snapshot('a', 2))).toBe(false);
    expect(progress.snapshot(snapshot('a', 4))).toBe(true);
    // The call completed: its four progress events arrive in order.
    expect([1, 2, 3, 4].map(() => progress.event('a'))).toEqual([true, false, true, false]);
  });

  it('keeps calls apart', () => {
    const progress = new LiveProgress();
    expect(progress.snapshot(snapshot('a', 1))).toBe(true);
    expect(progress.event('b')).toBe(true);
    expect(progress.event('a')).toBe(false);
  });
});
