import { describe, expect, it } from '@jest/globals';
import { addLostCall, LOST_CALLS_LISTED, readStepState, withoutStepState, type BilledCall } from '../../src/protocol/model-step-state';

/** The state a model step keeps in its heartbeat details: read back, stripped from live snapshots, and bounded. */

const call = (attempt: number, costUsd: number | null): BilledCall => ({ attempt, usage: { inputTokens: 10, outputTokens: 5 }, costUsd });

describe('model step state in heartbeat details', () => {
  it('reads the spend and the running hook next to a live snapshot, and a live view drops them', () => {
    const details = {
      kind: 'model-text',
      text: 'hi',
      spend: { lost: [call(1, 0.01)], answered: call(2, 0.01) },
      runningHook: { hook: 'audit', point: 'before-tool', startedAt: 5, limitMs: 30_000 },
    };
    expect(readStepState(details)).toEqual({ spend: details.spend, runningHook: details.runningHook });
    expect(withoutStepState(details)).toEqual({ kind: 'model-text', text: 'hi' });
    expect(readStepState({ kind: 'tool-progress' })).toEqual({});
    expect(readStepState(undefined)).toEqual({});
  });

  it('lists at most LOST_CALLS_LISTED lost calls, adding the oldest together so no token or dollar is dropped', () => {
    let lost: BilledCall[] = [];
    for (let attempt = 1; attempt <= LOST_CALLS_LISTED + 3; attempt++) lost = addLostCall(lost, call(attempt, 0.01));
    expect(lost).toHaveLength(LOST_CALLS_LISTED);
    expect(lost.reduce((sum, entry) => sum + entry.usage.inputTokens, 0)).toBe(10 * (LOST_CALLS_LISTED + 3));
    expect(lost.reduce((sum, entry) => sum + (entry.costUsd ?? 0), 0)).toBeCloseTo(0.01 * (LOST_CALLS_LISTED + 3), 9);
    // An unpriced call makes the sum it joins unpriced (never priced at zero).
    const withUnpriced = addLostCall(
      Array.from({ length: LOST_CALLS_LISTED }, (_, index) => call(index + 1, index === 0 ? null : 0.01)),
      call(99, 0.01),
    );
    expect(withUnpriced[0]!.costUsd).toBeNull();
  });
});
