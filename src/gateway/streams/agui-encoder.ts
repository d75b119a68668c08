// A turn's events and live text as AG-UI events (what CopilotKit and `@ag-ui/client` read).
import { EventType, type AGUIEvent, type Interrupt } from '@ag-ui/core';
import type { RunEvent } from '../../protocol/run-events';
import { TextTracker } from './text-tracker';

/** What an approval interrupt asks for: `{ approved, reason? }` in the resume entry's payload. */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['approved'],
} as const;

/** The `reason` of an interrupt that waits for a gated tool call's approval. */
export const APPROVAL_INTERRUPT_REASON = 'tool_approval';

/**
 * Turns a turn's events and live text into AG-UI events, keeping what a client has open (the model
 * step, the text message) and the approvals still waiting. Text streams as it is written (live
 * snapshots) and is completed from the logged `text-produced`, so a client that never saw the live
 * text gets the whole answer and one that did gets the rest. Message ids start with `prefix` (the
 * turn's), so every run of a thread names its messages apart.
 */
export class AguiEncoder {
  private openStep: number | null = null;
  private readonly text = new TextTracker();
  private seq: number;
  private readonly waiting = new Map<string, Interrupt>();

  /** `seq`: the event the stream starts after. */
  constructor(
    private readonly prefix: string,
    seq: number,
  ) {
    this.seq = seq;
  }

  /** The last event this encoder took. */
  get lastSeq(): number {
    return this.seq;
  }

  /** The approvals requested and not yet decided, as AG-UI interrupts (in the order they were asked). */
  get interrupts(): Interrupt[] {
    return [...this.waiting.values()];
  }

  /**
   * Starts a new AG-UI run after `seq`: the events up to it went through `event` silently, and the
   * run that showed them closed its step and text, so nothing is open now.
   */
  continueAfter(seq: number): void {
    this.seq = seq;
    this.openStep = null;
    this.text.close();
  }

  /** The AG-UI events for one logged event (none for events a chat shows nothing of). */
  event(event: RunEvent): AGUIEvent[] {
    this.seq = event.seq;
    switch (event.type) {
      case 'text-produced':
        return this.finalText(event.step, event.text);
      case 'status-changed':
        return [{ type: EventType.STATE_DELTA, delta: [{ op: 'replace', path: '/phase', value: event.phase }] }];
      case 'tool-called': {
        const toolCallId = event.call.id;
        return [
          ...this.closeText(),
          ...this.enterStep(event.step),
          { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: event.call.name },
          { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(event.call.args ?? {}) },
          { type: EventType.TOOL_CALL_END, toolCallId },
        ];
      }
      case 'tool-completed':
        return [
          ...this.enterStep(event.step),
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `${this.prefix}:tool-${event.callId}`,
            toolCallId: event.callId,
            content: event.content,
            role: 'tool',
            ...(event.isError ? { metadata: { isError: true } } : {}),
          },
        ];
      case 'approval-requested': {
        const { approvalId, callId, toolName, args, expiresAt } = event.request;
        this.waiting.set(approvalId, {
          id: approvalId,
          reason: APPROVAL_INTERRUPT_REASON,
          message: `Approve the call to ${toolName}?`,
          toolCallId: callId,
          responseSchema: { ...APPROVAL_RESPONSE_SCHEMA },
          expiresAt: new Date(expiresAt).toISOString(),
          metadata: { toolName, args },
        });
        return [];
      }
      case 'approval-decided':
      case 'approval-ignored':
        this.waiting.delete(event.approvalId);
        return [];
      default:
        return [];
    }
  }

  /** The AG-UI events for a live snapshot: the text a model step's attempt has written so far. */
  liveText(step: number, attempt: number, text: string): AGUIEvent[] {
    if (this.text.isOpen(step, attempt)) return this.more(text);
    if (this.text.isPast(step)) return [];
    if (this.openStep !== null && this.openStep > step) return [];
    const events = [...this.closeText(), ...this.enterStep(step)];
    const messageId = `${this.prefix}:text-${step}-${attempt}`;
    this.text.start(step, attempt, messageId);
    return [...events, { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }, ...this.more(text)];
  }

  /** Closes what is open (the text message, then the step): what a run sends before it finishes. */
  close(): AGUIEvent[] {
    const events = this.closeText();
    if (this.openStep !== null) events.push({ type: EventType.STEP_FINISHED, stepName: stepName(this.openStep) });
    this.openStep = null;
    return events;
  }

  private more(text: string): AGUIEvent[] {
    const added = this.text.more(text);
    return added ? [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId: added.id, delta: added.delta }] : [];
  }

  /** A step's logged answer: the rest of what streamed, or all of it in a message of its own. */
  private finalText(step: number, text: string): AGUIEvent[] {
    if (this.text.completes(step, text)) return [...this.more(text), ...this.closeText()];
    const events = [...this.closeText(), ...this.enterStep(step)];
    if (text.length === 0) return events;
    const messageId = `${this.prefix}:text-${step}-answer`;
    return [
      ...events,
      { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text },
      { type: EventType.TEXT_MESSAGE_END, messageId },
    ];
  }

  private closeText(): AGUIEvent[] {
    const messageId = this.text.close();
    return messageId !== null ? [{ type: EventType.TEXT_MESSAGE_END, messageId }] : [];
  }

  private enterStep(step: number): AGUIEvent[] {
    if (this.openStep === step) return [];
    const events: AGUIEvent[] = this.openStep !== null ? [{ type: EventType.STEP_FINISHED, stepName: stepName(this.openStep) }] : [];
    this.openStep = step;
    return [...events, { type: EventType.STEP_STARTED, stepName: stepName(step) }];
  }
}

/** The AG-UI step name of a model step: `step-<n>`, the same in every run of the turn. */
function stepName(step: number): string {
  return `step-${step}`;
}
