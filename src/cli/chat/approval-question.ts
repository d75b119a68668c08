// How the chat shows a gated call at its approval prompt: the tool, each argument (with sizes for big ones), who must decide and the deadline.
import { describeCallDecider } from '../../protocol/call-deciders';
import type { ApprovalRequest } from '../../protocol/run-status-types';

/** Characters of one argument shown at the prompt; `/full` prints the rest. */
const SHOWN_CHARACTERS = 240;

/**
 * The lines that present `request` at the prompt. Each argument gets a line; a long value shows its
 * beginning with its size (characters, and items for a list or keys for an object) so nothing is
 * silently cut, and `/full` is named as the way to read it whole.
 */
export function describeApprovalRequest(request: ApprovalRequest, now = Date.now()): string[] {
  const lines = [`? ${request.toolName} wants to run (approval ${request.approvalId}, step ${request.step})`];
  const entries = Object.entries(request.args);
  if (entries.length === 0) lines.push('    (no arguments)');
  let cut = false;
  for (const [name, value] of entries) {
    const { text, truncated } = describeValue(value);
    cut ||= truncated;
    lines.push(`    ${name}: ${text}`);
  }
  if (request.requiredBy?.length) lines.push(`    required by ${request.requiredBy.map(describeCallDecider).join(' and ')}`);
  lines.push(
    `    decide by ${new Date(request.expiresAt).toISOString()} (${describeRemaining(request.expiresAt - now)}); unanswered by then, the call does not run`,
  );
  if (cut) lines.push('    (some values are cut: /full prints every argument whole)');
  lines.push('  Approve: y, yes or approve. Reject: n, no or reject, then a reason if you like.');
  return lines;
}

/** Every argument of `request` in full, pretty-printed (the `/full` command). */
export function describeFullArguments(request: ApprovalRequest): string {
  return `${request.toolName} ${JSON.stringify(request.args, null, 2)}`;
}

function describeValue(value: unknown): { text: string; truncated: boolean } {
  const json = typeof value === 'string' ? value : JSON.stringify(value);
  const shape = Array.isArray(value)
    ? `${value.length} ${value.length === 1 ? 'item' : 'items'}, `
    : value !== null && typeof value === 'object'
      ? `${Object.keys(value).length} keys, `
      : '';
  const oneLine = typeof value === 'string' ? JSON.stringify(value) : json;
  const lineCount = typeof value === 'string' ? value.split('\n').length : 1;
  if (oneLine.length <= SHOWN_CHARACTERS) return { text: oneLine, truncated: false };
  const size = `${shape}${json.length.toLocaleString('en-US')} characters${lineCount > 1 ? `, ${lineCount} lines` : ''}`;
  return { text: `${oneLine.slice(0, SHOWN_CHARACTERS)}… [${size}; first ${SHOWN_CHARACTERS} shown]`, truncated: true };
}

function describeRemaining(milliseconds: number): string {
  if (milliseconds <= 0) return 'past';
  const minutes = Math.floor(milliseconds / 60_000);
  if (minutes < 1) return `in ${Math.ceil(milliseconds / 1000)} s`;
  if (minutes < 120) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `in ${hours} h ${minutes % 60} min` : `in ${Math.floor(hours / 24)} days`;
}
