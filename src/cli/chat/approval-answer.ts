// The chat's approval answers: only an explicit word decides a gated call; anything else asks again.

/** A decision the person typed, or null when the answer decides nothing (ask again). */
export type ApprovalAnswer = { decision: 'approve' } | { decision: 'reject'; reason: string | null } | null;

const APPROVE_WORDS = new Set(['y', 'yes', 'approve']);

/**
 * Reads an answer to "approve this call?". `y`, `yes` or `approve` alone approve (words after them
 * make the answer ambiguous: "yes, but only the first" decides nothing); `n`, `no` or `reject`
 * reject, optionally followed by the reason the model will see (`no: wrong account`). Case and
 * surrounding space do not matter. Anything else (an empty line, "ok", "sure", "approve it")
 * decides nothing: a mistyped or half-meant answer must never run or drop a call.
 */
export function parseApprovalAnswer(line: string): ApprovalAnswer {
  const answer = line.trim();
  if (APPROVE_WORDS.has(answer.toLowerCase())) return { decision: 'approve' };
  // The word alone, or followed by a separator and the reason: "no: wrong account", "reject - too big".
  const rejection = /^(n|no|reject)(?:$|[\s:,\-–]+([\s\S]*)$)/i.exec(answer);
  if (!rejection) return null;
  const reason = rejection[2]?.trim() ?? '';
  return { decision: 'reject', reason: reason === '' ? null : reason };
}

/** What the prompt says when an answer decided nothing. */
export const APPROVAL_ANSWER_HELP = 'Not decided. Type y, yes or approve to approve; n, no or reject (then a reason, if you like) to reject.';
