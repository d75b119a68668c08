import { describe, expect, it } from '@jest/globals';
import { baseActivityId, MODEL_BACKOFF, retryDecision, TOOL_BACKOFF, tryActivityId } from '../../src/protocol/workflow-retries';

describe('workflow-level retries of the provider’s and tools’ own failures', () => {
  it('retries a retryable failure with exponential backoff, capped, until the budget of tries is spent', () => {
    const failure = { retryable: true, attempts: 3 };
    expect(retryDecision(failure, 1, 3, MODEL_BACKOFF)).toEqual({ retry: true, delayMs: 1_000, attemptsBefore: 3 });
    expect(retryDecision(failure, 2, 3, MODEL_BACKOFF)).toEqual({ retry: true, delayMs: 2_000, attemptsBefore: 3 });
    expect(retryDecision(failure, 3, 3, MODEL_BACKOFF)).toEqual({ retry: false });
    expect(retryDecision(failure, 7, 10, TOOL_BACKOFF)).toEqual({ retry: true, delayMs: 30_000, attemptsBefore: 3 });
  });

  it('waits what the server asked for (retry-after) instead of the backoff', () => {
    expect(retryDecision({ retryable: true, attempts: 1, retryAfterMs: 7_500 }, 1, 3, MODEL_BACKOFF)).toEqual({
      retry: true,
      delayMs: 7_500,
      attemptsBefore: 1,
    });
  });

  it('never retries a failure marked non-retryable, or one that carries no details (not ours)', () => {
    expect(retryDecision({ retryable: false, attempts: 1 }, 1, 5, TOOL_BACKOFF)).toEqual({ retry: false });
    expect(retryDecision(undefined, 1, 5, TOOL_BACKOFF)).toEqual({ retry: false });
  });

  it('keeps the first try’s activity id as runs always had it, numbers later tries, and maps every try back to the call', () => {
    expect(tryActivityId('step-3.tool-1.charge', 1)).toBe('step-3.tool-1.charge');
    expect(tryActivityId('step-3.tool-1.charge', 2)).toBe('step-3.tool-1.charge.try-2');
    expect(baseActivityId('step-3.tool-1.charge.try-12')).toBe('step-3.tool-1.charge');
    expect(baseActivityId('step-3.model')).toBe('step-3.model');
  });
});
