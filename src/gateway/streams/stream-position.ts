// Where a client is in a stream: the last event it has and how much of the open text part, as an SSE event id.

/** The text part a client has open: a model step's attempt and how many of its characters it has. */
export interface TextPosition {
  step: number;
  attempt: number;
  chars: number;
}

/**
 * A client's place in a run's or turn's stream: every chunk of the events up to `seq`, and, when a
 * model step's text was streaming, the first `chars` characters of it. Built only from what the run
 * recorded (event numbers) and the text's length, so any gateway process can continue from it.
 */
export interface StreamPosition {
  seq: number;
  text: TextPosition | null;
}

/** The SSE `id` of a position: `<seq>` or `<seq>~<step>.<attempt>.<chars>`. */
export function positionId(position: StreamPosition): string {
  const { seq, text } = position;
  return text ? `${seq}~${text.step}.${text.attempt}.${text.chars}` : String(seq);
}

/** The position an SSE id (`Last-Event-ID`) names, or null when it is not one of ours. */
export function parsePositionId(id: string | null | undefined): StreamPosition | null {
  const match = /^(\d{1,15})(?:~(\d{1,9})\.(\d{1,6})\.(\d{1,12}))?$/.exec((id ?? '').trim());
  if (!match) return null;
  const seq = Number(match[1]);
  if (match[2] === undefined) return { seq, text: null };
  return { seq, text: { step: Number(match[2]), attempt: Number(match[3]), chars: Number(match[4]) } };
}
