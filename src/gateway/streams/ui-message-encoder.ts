// A turn's events and live text as the AI SDK's UI message stream chunks (what `useChat` reads).
import type { UIMessageChunk } from 'ai';
import type { RunEvent } from '../../protocol/run-events';
import type { StopReason } from '../../protocol/run-status-types';
import type { StreamPosition } from './stream-position';
import { TextTracker } from './text-tracker';

/** How a stream ended: the run's stop reason, `failed`, `waiting` for approvals, or `ended` (the run or thread closed otherwise). */
export type StreamEnd = StopReason | 'failed' | 'waiting' | 'ended';

type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/**
 * Turns a run's events and live text into UI message chunks, keeping what a client has open (the
 * model step, the text part, its length) so the stream can be continued from a `StreamPosition`.
 * Text is sent as it streams (live snapshots) and completed from the logged `text-produced`, so a
 * client that never saw the live text gets the whole answer, and one that did gets the rest.
 */
export class UiMessageEncoder {
  private openStep: number | null = null;
  private readonly text = new TextTracker();
  private seq: number;
  private readonly callOfApproval = new Map<string, string>();

  /** `seq`: the event the stream starts after. */
  constructor(seq: number) {
    this.seq = seq;
  }

  /** Where a client that received every chunk so far stands. */
  get position(): StreamPosition {
    return { seq: this.seq, text: this.text.position };
  }

  /** Takes a client's position as its own: the events up to it were replayed silently through `event`. */
  continueFrom(position: StreamPosition): void {
    this.seq = position.seq;
    if (!position.text) return;
    const { step, attempt, chars } = position.text;
    this.openStep = step;
    this.text.continueAt(step, attempt, textPartId(step, attempt), chars);
  }

  /** The chunks for one logged event (none for events a chat shows nothing of). */
  event(event: RunEvent): UIMessageChunk[] {
    this.seq = event.seq;
    switch (event.type) {
      case 'text-produced':
        return this.finalText(event.step, event.text);
      case 'tool-called':
        return [
          ...this.enterStep(event.step),
          ...this.closeText(),
          { type: 'tool-input-available', toolCallId: event.call.id, toolName: event.call.name, input: event.call.args },
        ];
      case 'approval-requested':
        this.callOfApproval.set(event.request.approvalId, event.request.callId);
        return [{ type: 'tool-approval-request', approvalId: event.request.approvalId, toolCallId: event.request.callId }];
      case 'approval-decided': {
        const callId = this.callOfApproval.get(event.approvalId);
        return event.outcome !== 'approved' && callId ? [{ type: 'tool-output-denied', toolCallId: callId }] : [];
      }
      case 'tool-completed':
        return event.isError
          ? [{ type: 'tool-output-error', toolCallId: event.callId, errorText: event.content }]
          : [{ type: 'tool-output-available', toolCallId: event.callId, output: event.content }];
      case 'run-failed':
        return [...this.closeText(), { type: 'error', errorText: event.message }];
      default:
        return [];
    }
  }

  /** The chunks for a live snapshot: the text a model step's attempt has written so far. */
  liveText(step: number, attempt: number, text: string): UIMessageChunk[] {
    if (this.text.isOpen(step, attempt)) return this.more(text);
    if (this.text.isPast(step)) return [];
    const chunks = [...this.closeText(), ...this.enterStep(step)];
    const id = textPartId(step, attempt);
    this.text.start(step, attempt, id);
    return [...chunks, { type: 'text-start', id }, ...this.more(text)];
  }

  /** The last chunks of a turn or run: its step closed, then `finish` with why it stopped. */
  finish(stopReason: StreamEnd, metadata: unknown): UIMessageChunk[] {
    const closing = [...this.closeText(), ...(this.openStep !== null ? [{ type: 'finish-step' } as const] : [])];
    this.openStep = null;
    return [...closing, { type: 'finish', finishReason: finishReasonOf(stopReason), messageMetadata: metadata }];
  }

  private more(text: string): UIMessageChunk[] {
    const added = this.text.more(text);
    return added ? [{ type: 'text-delta', id: added.id, delta: added.delta }] : [];
  }

  /** A step's logged answer: the rest of what streamed, or all of it in a part of its own. */
  private finalText(step: number, text: string): UIMessageChunk[] {
    if (this.text.completes(step, text)) return [...this.more(text), ...this.closeText()];
    const chunks = [...this.closeText(), ...this.enterStep(step)];
    if (text.length === 0) return chunks;
    const id = `${textPartId(step, 0)}-answer`;
    return [...chunks, { type: 'text-start', id }, { type: 'text-delta', id, delta: text }, { type: 'text-end', id }];
  }

  private closeText(): UIMessageChunk[] {
    const id = this.text.close();
    return id !== null ? [{ type: 'text-end', id }] : [];
  }

  private enterStep(step: number): UIMessageChunk[] {
    if (this.openStep === step) return [];
    const chunks: UIMessageChunk[] = this.openStep !== null ? [{ type: 'finish-step' }] : [];
    this.openStep = step;
    return [...chunks, { type: 'start-step' }];
  }
}

function textPartId(step: number, attempt: number): string {
  return `text-${step}-${attempt}`;
}

function finishReasonOf(stopReason: StreamEnd): FinishReason {
  if (stopReason === 'completed') return 'stop';
  if (stopReason === 'max_steps') return 'length';
  if (stopReason === 'failed') return 'error';
  if (stopReason === 'waiting') return 'tool-calls';
  return 'other';
}
