import { describe, expect, it } from '@jest/globals';
import { EventType, type AGUIEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import type { RunEvent } from '../../src/protocol/run-events';
import type { ToolResultMetadata } from '../../src/protocol/tool-result-metadata';
import { AguiEncoder, APPROVAL_INTERRUPT_REASON } from '../../src/gateway/streams/agui-encoder';

const at = 0;
const textProduced = (seq: number, step: number, text: string): RunEvent => ({ type: 'text-produced', step, text, seq, at });
const call = { id: 'call-1', name: 'deploy', args: { target: 'prod' } };
const metadata: ToolResultMetadata = {
  status: 'success',
  started_at: 0,
  completed_at: 1,
  execution_time_ms: 1,
  approval_status: 'not_required',
  approval_id: null,
  injected_args: {},
  offloaded_artifact_id: null,
};

function textOf(events: AGUIEvent[]): string {
  return events.map((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? event.delta : '')).join('');
}

/** Every event is one AG-UI's own schema accepts (the shape `@ag-ui/client` checks on the wire). */
function expectValid(events: AGUIEvent[]): void {
  for (const event of events) expect(EventSchema.safeParse(event).error).toBeUndefined();
}

describe('AguiEncoder', () => {
  it('streams live text as content events and only the rest when the step logs its answer', () => {
    const encoder = new AguiEncoder('t:turn-1', 3);
    const first = encoder.liveText(1, 1, 'Hello');
    expect(first.map((event) => event.type)).toEqual([EventType.STEP_STARTED, EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_CONTENT]);
    expect(first[1]).toMatchObject({ messageId: 't:turn-1:text-1-1', role: 'assistant' });
    const more = encoder.liveText(1, 1, 'Hello wor');
    const rest = encoder.event(textProduced(4, 1, 'Hello world'));
    expect(textOf([...first, ...more, ...rest])).toBe('Hello world');
    expect(rest.at(-1)).toEqual({ type: EventType.TEXT_MESSAGE_END, messageId: 't:turn-1:text-1-1' });
    expect(encoder.close()).toEqual([{ type: EventType.STEP_FINISHED, stepName: 'step-1' }]);
    expect(encoder.lastSeq).toBe(4);
    expectValid([...first, ...more, ...rest]);
  });

  it('gives a retried attempt that wrote something else a message of its own', () => {
    const encoder = new AguiEncoder('t:turn-1', 0);
    encoder.liveText(2, 1, 'Draft one');
    const events = encoder.event(textProduced(5, 2, 'Final answer'));
    expect(events.map((event) => event.type)).toEqual([
      EventType.TEXT_MESSAGE_END,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
    ]);
    expect(textOf(events)).toBe('Final answer');
  });

  it('sends a tool call as start, JSON arguments and end, then its result in the same step', () => {
    const encoder = new AguiEncoder('t:turn-2', 0);
    const called = encoder.event({ type: 'tool-called', step: 1, call, seq: 1, at });
    expect(called.map((event) => event.type)).toEqual([
      EventType.STEP_STARTED,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
    ]);
    expect(called[2]).toMatchObject({ toolCallId: 'call-1', delta: JSON.stringify({ target: 'prod' }) });
    const completed = encoder.event({
      type: 'tool-completed',
      step: 1,
      callId: 'call-1',
      toolName: 'deploy',
      content: 'failed: no access',
      isError: true,
      metadata,
      seq: 2,
      at,
    });
    expect(completed).toEqual([
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: 't:turn-2:tool-call-1',
        toolCallId: 'call-1',
        content: 'failed: no access',
        role: 'tool',
        metadata: { isError: true },
      },
    ]);
    const nextStep = encoder.event(textProduced(3, 2, 'Sorry'));
    expect(nextStep.slice(0, 2)).toEqual([
      { type: EventType.STEP_FINISHED, stepName: 'step-1' },
      { type: EventType.STEP_STARTED, stepName: 'step-2' },
    ]);
    expectValid([...called, ...completed, ...nextStep, ...encoder.close()]);
  });

  it('keeps an approval as an interrupt until it is decided, and reports phase changes as state deltas', () => {
    const encoder = new AguiEncoder('t:turn-1', 0);
    const request = {
      approvalId: 'step-1.call-1',
      toolName: 'deploy',
      callId: 'call-1',
      step: 1,
      args: call.args,
      injectedArgs: {},
      requestedAt: 0,
      expiresAt: 60_000,
    };
    expect(encoder.event({ type: 'approval-requested', request, seq: 1, at })).toEqual([]);
    expect(encoder.interrupts).toEqual([
      expect.objectContaining({
        id: 'step-1.call-1',
        reason: APPROVAL_INTERRUPT_REASON,
        toolCallId: 'call-1',
        expiresAt: new Date(60_000).toISOString(),
      }),
    ]);
    expectValid([{ type: EventType.RUN_FINISHED, threadId: 't', runId: 'r', outcome: { type: 'interrupt', interrupts: encoder.interrupts } }]);
    encoder.event({
      type: 'approval-decided',
      approvalId: 'step-1.call-1',
      toolName: 'deploy',
      outcome: 'approved',
      reason: null,
      decidedBy: 'ann',
      seq: 2,
      at,
    });
    expect(encoder.interrupts).toEqual([]);
    const phase = encoder.event({ type: 'status-changed', phase: 'tools', step: 1, seq: 3, at });
    expect(phase).toEqual([{ type: EventType.STATE_DELTA, delta: [{ op: 'replace', path: '/phase', value: 'tools' }] }]);
    expectValid(phase);
  });

  it('opens nothing again after continuing: the interrupted run closed its step and text', () => {
    const encoder = new AguiEncoder('t:turn-1', 0);
    encoder.event({ type: 'tool-called', step: 1, call, seq: 1, at });
    encoder.continueAfter(1);
    expect(encoder.close()).toEqual([]);
    const completed = encoder.event({
      type: 'tool-completed',
      step: 1,
      callId: 'call-1',
      toolName: 'deploy',
      content: 'ok',
      isError: false,
      metadata,
      seq: 2,
      at,
    });
    expect(completed.map((event) => event.type)).toEqual([EventType.STEP_STARTED, EventType.TOOL_CALL_RESULT]);
  });
});
