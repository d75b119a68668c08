import { describe, expect, it } from '@jest/globals';
import type { UIMessageChunk } from 'ai';
import type { RunEvent } from '../../src/protocol/run-events';
import { parsePositionId, positionId } from '../../src/gateway/streams/stream-position';
import { UiMessageEncoder } from '../../src/gateway/streams/ui-message-encoder';

const at = 0;
const textProduced = (seq: number, step: number, text: string): RunEvent => ({ type: 'text-produced', step, text, seq, at });

function textOf(chunks: UIMessageChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('');
}

describe('UiMessageEncoder', () => {
  it('sends live text as deltas and only the rest when the step logs its answer', () => {
    const encoder = new UiMessageEncoder(3);
    const first = encoder.liveText(1, 1, 'Hello');
    expect(first.map((chunk) => chunk.type)).toEqual(['start-step', 'text-start', 'text-delta']);
    expect(positionId(encoder.position)).toBe('3~1.1.5');
    const rest = encoder.event(textProduced(4, 1, 'Hello world'));
    expect(textOf(rest)).toBe(' world');
    expect(rest.at(-1)).toEqual({ type: 'text-end', id: 'text-1-1' });
    expect(positionId(encoder.position)).toBe('4');
  });

  it('continues a client part from its position without a second text-start', () => {
    const encoder = new UiMessageEncoder(0);
    encoder.continueFrom(parsePositionId('3~1.1.5')!);
    const chunks = [...encoder.liveText(1, 1, 'Hello wor'), ...encoder.event(textProduced(4, 1, 'Hello world'))];
    expect(chunks.some((chunk) => chunk.type === 'text-start')).toBe(false);
    expect(textOf(chunks)).toBe(' world');
  });

  it('gives a retried attempt that wrote something else a part of its own', () => {
    const encoder = new UiMessageEncoder(0);
    encoder.liveText(2, 1, 'Draft one');
    const chunks = encoder.event(textProduced(5, 2, 'Final answer'));
    expect(chunks.map((chunk) => chunk.type)).toEqual(['text-end', 'text-start', 'text-delta', 'text-end']);
    expect(textOf(chunks)).toBe('Final answer');
  });

  it('maps approvals onto the tool part: a request, and a rejection as output-denied', () => {
    const encoder = new UiMessageEncoder(0);
    encoder.event({ type: 'tool-called', step: 1, call: { id: 'c1', name: 'deploy', args: { env: 'prod' } }, seq: 1, at });
    const request = encoder.event({
      type: 'approval-requested',
      request: { approvalId: 'step-1.call-1', toolName: 'deploy', callId: 'c1', step: 1, args: {}, injectedArgs: {}, requestedAt: 0, expiresAt: 1 },
      seq: 2,
      at,
    });
    expect(request).toEqual([{ type: 'tool-approval-request', approvalId: 'step-1.call-1', toolCallId: 'c1' }]);
    const denied = encoder.event({
      type: 'approval-decided',
      approvalId: 'step-1.call-1',
      toolName: 'deploy',
      outcome: 'rejected',
      reason: 'no',
      decidedBy: 'x',
      seq: 3,
      at,
    });
    expect(denied).toEqual([{ type: 'tool-output-denied', toolCallId: 'c1' }]);
    expect(encoder.finish('waiting', { turn: 1 }).at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls', messageMetadata: { turn: 1 } });
  });
});

describe('stream positions', () => {
  it('round-trips ids and refuses what is not one', () => {
    expect(parsePositionId('12')).toEqual({ seq: 12, text: null });
    expect(parsePositionId(positionId({ seq: 7, text: { step: 2, attempt: 1, chars: 40 } }))).toEqual({
      seq: 7,
      text: { step: 2, attempt: 1, chars: 40 },
    });
    for (const bad of ['', 'x', '1~2', '-1', '1~a.b.c']) expect(parsePositionId(bad)).toBeNull();
  });
});
