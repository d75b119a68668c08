// A caller's reply to a task waiting for an approval: "approve", "reject <reason>", or a data part { decision, reason, approvalId? }.
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';

/** One decision a reply asks for; `approvalId` null: every approval the task waits for. */
export interface ApprovalAnswer {
  decision: 'approve' | 'reject';
  reason: string | undefined;
  approvalId: string | null;
}

const APPROVE_WORDS = new Set(['approve', 'approved', 'yes', 'y', 'ok']);
const REJECT_WORDS = new Set(['reject', 'rejected', 'deny', 'denied', 'no', 'n']);
/** A reason the run would refuse is refused here first (the run takes at most 4,000 characters). */
const MAX_REASON = 4_000;

/** The text of a message's text parts, joined by newlines. */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : null))
    .filter((text): text is string => text !== null)
    .join('\n');
}

/**
 * The decision a message on a waiting task carries: its first data part with `decision`, else its
 * text, whose first word says it (approve, yes, ok / reject, deny, no) and whose rest is the reason.
 * @throws RequestMalformedError (-32602) naming what is missing or wrong: nothing is decided then.
 */
export function approvalAnswerOf(message: Message): ApprovalAnswer {
  for (const part of message.parts) {
    if (part.content?.$case !== 'data' || typeof part.content.value !== 'object' || part.content.value === null) continue;
    const data = part.content.value as { decision?: unknown; reason?: unknown; approvalId?: unknown };
    if (data.decision === undefined) continue;
    if (data.decision !== 'approve' && data.decision !== 'reject')
      throw new RequestMalformedError(`message.parts: data part decision must be 'approve' or 'reject', not ${JSON.stringify(data.decision)}`);
    if (data.reason !== undefined && typeof data.reason !== 'string')
      throw new RequestMalformedError('message.parts: data part reason must be a string');
    if (data.approvalId !== undefined && typeof data.approvalId !== 'string')
      throw new RequestMalformedError('message.parts: data part approvalId must be a string');
    return checked({
      decision: data.decision,
      reason: data.reason as string | undefined,
      approvalId: (data.approvalId as string | undefined) ?? null,
    });
  }
  const text = messageText(message).trim();
  const [first = '', ...rest] = text.split(/\s+/);
  const word = first.toLowerCase().replace(/[.!,:;]+$/, '');
  const reason = rest.join(' ').trim() || undefined;
  if (APPROVE_WORDS.has(word)) return checked({ decision: 'approve', reason, approvalId: null });
  if (REJECT_WORDS.has(word)) return checked({ decision: 'reject', reason, approvalId: null });
  throw new RequestMalformedError(
    `message: the task waits for an approval; reply "approve [reason]" or "reject <reason>", or a data part { decision: 'approve' | 'reject', reason?, approvalId? }, not ${JSON.stringify(text.slice(0, 60))}`,
  );
}

function checked(answer: ApprovalAnswer): ApprovalAnswer {
  if (answer.reason !== undefined && answer.reason.length > MAX_REASON)
    throw new RequestMalformedError(`message: the reason is ${answer.reason.length} characters; at most ${MAX_REASON}`);
  return answer;
}
