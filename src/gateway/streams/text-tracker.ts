// Which text of a model step a stream's client already has: live heartbeat snapshots first, then the logged answer.
import type { TextPosition } from './stream-position';

/** The text a client has open: a model step's attempt, its part or message id, and what it was sent. */
interface OpenText {
  step: number;
  attempt: number;
  id: string;
  /** How many characters the client has. */
  sent: number;
  /** The text the client has, when this tracker sent it (null when it continues a client's position, of which it knows only the length). */
  prefix: string | null;
}

/** What a snapshot or the logged answer adds to the open text. */
export interface TextDelta {
  id: string;
  delta: string;
}

/**
 * Tracks the one text a stream has open, so that a step's text goes out as it is written (live
 * snapshots) and is completed from the logged answer with only what the client lacks. A snapshot
 * that does not extend what was sent (a retried attempt rewrote it) adds nothing: the logged answer
 * settles it. Both stream encoders (the UI message stream's and AG-UI's) keep their text here.
 */
export class TextTracker {
  private open: OpenText | null = null;

  /** The open text's id, or null when none is open. */
  get openId(): string | null {
    return this.open?.id ?? null;
  }

  /** Where the client stands in the open text (null when none is open). */
  get position(): TextPosition | null {
    const open = this.open;
    return open ? { step: open.step, attempt: open.attempt, chars: open.sent } : null;
  }

  /** Whether `step`'s `attempt` is the open text. */
  isOpen(step: number, attempt: number): boolean {
    return this.open !== null && this.open.step === step && this.open.attempt === attempt;
  }

  /** Whether a later step's text is open (a snapshot of `step` came late: nothing to send). */
  isPast(step: number): boolean {
    return this.open !== null && this.open.step > step;
  }

  /** Opens `step`'s `attempt` as `id`, nothing sent yet (close the previous one first). */
  start(step: number, attempt: number, id: string): void {
    this.open = { step, attempt, id, sent: 0, prefix: '' };
  }

  /** Takes a client's position as open: it has the first `chars` characters of `step`'s `attempt` (their text unknown). */
  continueAt(step: number, attempt: number, id: string, chars: number): void {
    this.open = { step, attempt, id, sent: chars, prefix: null };
  }

  /** What `text` (the open text's whole text so far) adds to what was sent, now counted as sent; null when it adds nothing. */
  more(text: string): TextDelta | null {
    const open = this.open;
    if (!open || text.length <= open.sent || (open.prefix !== null && !text.startsWith(open.prefix))) return null;
    const delta = text.slice(open.sent);
    open.sent = text.length;
    if (open.prefix !== null) open.prefix = text;
    return { id: open.id, delta };
  }

  /** Whether `step`'s logged answer `text` goes on from the open text (else it is a text of its own). */
  completes(step: number, text: string): boolean {
    const open = this.open;
    if (!open || open.step !== step) return false;
    return open.prefix === null ? text.length >= open.sent : text.startsWith(open.prefix);
  }

  /** Closes the open text; returns its id (null when none was open). */
  close(): string | null {
    const id = this.openId;
    this.open = null;
    return id;
  }
}
