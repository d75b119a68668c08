import { describe, expect, it } from '@jest/globals';
import { statusJson } from '../../src/cli/commands/status-command';
import type { RunStatus } from '../../src/protocol/run-types';

const base: RunStatus = {
  phase: 'concurrency_slot',
  step: 0,
  maxSteps: 10,
  activeTools: [],
  runningTools: [],
  usage: { inputTokens: 0, outputTokens: 0, byModel: {} },
  messageCount: 1,
  stopReason: null,
  pendingApprovals: [],
  plan: null,
  budget: null,
  queuedMessages: 0,
  skills: [],
};

describe('status --json', () => {
  it('prints how long a run has waited as a duration, and when the wait began as a time, for a concurrency slot', () => {
    const since = Date.parse('2026-05-01T10:00:00.000Z');
    const json = statusJson(
      'run-1',
      'RUNNING',
      { ...base, concurrencySlotWait: { key: 'agent:support', limit: 3, sinceMs: since } },
      null,
      since + 4_500,
    );
    expect(json).toMatchObject({
      workflowId: 'run-1',
      execution: 'RUNNING',
      phase: 'concurrency_slot',
      concurrencySlotWait: { key: 'agent:support', limit: 3, since: '2026-05-01T10:00:00.000Z', waitedMs: 4_500 },
    });
    expect(JSON.stringify(json)).not.toContain('sinceMs');
  });

  it('does the same for a provider limit wait, with the granted time', () => {
    const since = Date.parse('2026-05-01T10:00:00.000Z');
    const json = statusJson(
      'run-2',
      'RUNNING',
      { ...base, phase: 'provider_limit', providerLimitWait: { model: 'openai:gpt-4o', sinceMs: since, untilMs: since + 60_000 } },
      null,
      since + 1_000,
    );
    expect(json).toMatchObject({
      providerLimitWait: { model: 'openai:gpt-4o', since: '2026-05-01T10:00:00.000Z', waitedMs: 1_000, until: '2026-05-01T10:01:00.000Z' },
    });
    expect(statusJson('run-3', 'COMPLETED', base, null, since)).not.toHaveProperty('providerLimitWait');
  });
});
