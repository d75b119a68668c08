import { describe, expect, it } from '@jest/globals';
import { addUsage, emptyUsage } from '../../src/workflows/rules/usage-totals';
import { buildSystemPrompt } from '../../src/workflows/rules/run-prompts';
import { continuationHeading } from '../../src/workflows/rules/continuation-heading';
import { lastAssistantText } from '../../src/protocol/assistant-text';
import { EventLog, summarizeEvent } from '../../src/workflows/loop/event-log';
import { parseAgentConfig } from '../../src/config/agent-config';

describe('agent loop rules', () => {
  it('adds the output contract to the system prompt only when an output type is set', () => {
    expect(buildSystemPrompt(parseAgentConfig({ name: 'a', instructions: 'Be brief.' }))).toBe('Be brief.');
    const structured = buildSystemPrompt(parseAgentConfig({ name: 'a', instructions: 'Be brief.', output_type: { type: 'object' } }));
    expect(structured).toContain('Be brief.');
    expect(structured).toContain('{"type":"object"}');
  });

  it('sums usage in total and per model', () => {
    const usage = emptyUsage();
    addUsage(usage, 'openai:a', { inputTokens: 10, outputTokens: 2 });
    addUsage(usage, 'openai:b', { inputTokens: 5, outputTokens: 1 });
    addUsage(usage, 'openai:a', { inputTokens: 1, outputTokens: 1 });
    // Calls without a cost from the worker (workers before pricing) are counted as unpriced, never as free.
    expect(usage).toEqual({
      inputTokens: 16,
      outputTokens: 4,
      costUsd: 0,
      unpricedCalls: 3,
      byModel: {
        'openai:a': { inputTokens: 11, outputTokens: 3, unpricedCalls: 2 },
        'openai:b': { inputTokens: 5, outputTokens: 1, unpricedCalls: 1 },
      },
    });
  });

  it('finds the last assistant text', () => {
    expect(
      lastAssistantText([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a1', toolCalls: [] },
        { role: 'assistant', content: '', toolCalls: [] },
      ]),
    ).toBe('a1');
  });
});

describe('event log', () => {
  it('pages events after a cursor', () => {
    const log = new EventLog(10);
    for (let index = 0; index < 5; index++) log.push({ type: 'status-changed', phase: 'model', step: index });
    const first = log.page(0, 3, false);
    expect(first.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    const rest = log.page(first.nextCursor, 10, true);
    expect(rest.events.map((event) => event.seq)).toEqual([4, 5]);
    expect(rest.finished).toBe(true);
    expect(log.page(5, 10, false)).toMatchObject({ events: [], nextCursor: 5, missed: 0 });
  });

  it('stays bounded and tells a late reader how many events it missed', () => {
    const log = new EventLog(3);
    for (let index = 0; index < 10; index++) log.push({ type: 'status-changed', phase: 'model', step: index });
    const page = log.page(0, 100, false);
    expect(page.events.map((event) => event.seq)).toEqual([8, 9, 10]);
    expect(page.missed).toBe(7);
  });

  it('carries summarised events and goes on numbering after the last one, even when none fit', () => {
    const log = new EventLog(10);
    log.push({ type: 'text-produced', step: 1, text: 'x'.repeat(5_000) });
    log.push({ type: 'tool-called', step: 1, call: { id: 'c1', name: 'write', args: { body: 'y'.repeat(5_000) } } });
    const carried = log.tail(10, 4_000, summarizeEvent);
    expect(carried.map((event) => event.seq)).toEqual([1, 2]);
    expect(carried[0]).toMatchObject({ type: 'text-produced', text: `${'x'.repeat(500)}…` });
    expect(carried[1]).toMatchObject({ call: { args: { body: `${'y'.repeat(500)}…` } } });
    const next = new EventLog(10, log.tail(10, 10), log.lastSeq);
    expect(next.push({ type: 'status-changed', phase: 'model', step: 2 }).seq).toBe(3);
  });
});

describe('the heading of an execution that continues a run (it has no summary of its own)', () => {
  it('names the agent, why the execution is new (a handoff, or a long history) and the task on one line', () => {
    expect(continuationHeading('triage', 'Refund order 7', undefined)).toBeNull();
    const handoff = { step: 2, continuations: 1, handoffs: [{ from: 'triage', to: 'billing', step: 2 }] };
    expect(continuationHeading('billing', 'Refund\n  order 7', handoff)).toBe('billing (handed off from triage after step 2): Refund order 7');
    // A later continuation of the same agent is not a handoff any more.
    expect(continuationHeading('billing', 'Refund order 7', { ...handoff, step: 40, continuations: 2 })).toBe(
      'billing (continued as new after step 40, execution 3): Refund order 7',
    );
    expect(continuationHeading('writer', 'x'.repeat(300), { step: 9, continuations: 0 })).toBe(
      `writer (continued as new after step 9, execution 1): ${'x'.repeat(99)}…`,
    );
    expect(continuationHeading('support', '', { step: 12, continuations: 1 })).toBe('support (continued as new after step 12, execution 2)');
  });
});
