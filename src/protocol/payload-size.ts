/**
 * Temporal refuses a payload over 2 MB and a workflow task completion over 4 MB (gRPC); a workflow
 * task that keeps failing that way never recovers, so the run would be stuck for ever. Everything
 * a run sends is measured against these bounds first. Pure and deterministic (workflow-safe).
 */

/** What one payload the workflow sends (activity or child input, continue-as-new, result) may hold. */
export const PAYLOAD_LIMIT_BYTES = 1_000_000;

/** What a query answer (a conversation slice, a page of events) may hold. */
export const QUERY_ANSWER_LIMIT_BYTES = 1_000_000;

/** What an activity's result may hold (Temporal refuses one over 2 MB, and retries never fix that). */
export const ACTIVITY_RESULT_LIMIT_BYTES = 1_500_000;

/** The content of one tool result kept inline: past it, the result goes to the artifact store or is cut. */
export const TOOL_CONTENT_LIMIT_CHARACTERS = 500_000;

/** Cuts text that is too long to keep inline, saying so (the tool's full output is not kept anywhere else). */
export function cutToLimit(content: string, limit = TOOL_CONTENT_LIMIT_CHARACTERS): string {
  if (content.length <= limit) return content;
  return `${content.slice(0, limit)}\n[cut: ${content.length} characters in all; the first ${limit} are kept. Configure an artifact store to keep whole results.]`;
}

/** Tool results a run result (and a continuation) keeps: the newest ones; `history` has them all. */
export const KEPT_TOOL_RESULTS = 50;

/** The UTF-8 size of a value as JSON (how Temporal's default converter encodes it). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) ?? '';
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4; // a surrogate pair: one 4-byte character
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest suffix of `items` whose JSON fits `limitBytes` (newest last, kept in order). */
export function newestWithin<T>(items: readonly T[], limitBytes: number): T[] {
  let bytes = 2;
  let start = items.length;
  while (start > 0) {
    const size = jsonBytes(items[start - 1]) + 1;
    if (bytes + size > limitBytes) break;
    bytes += size;
    start--;
  }
  return items.slice(start);
}
