// The event lines of a chat: those of `run --follow`, with long arguments cut and approvals left to the approval prompt.
import type { RunEvent } from '../../protocol/run-events';
import { formatRunEvent } from '../event-printer';

/** Characters of a tool call's arguments shown on its line (the approval prompt shows them in full on request). */
const CALL_LINE_CHARACTERS = 300;

/** One event's line in the chat, or null when the chat shows it otherwise (an approval request is asked at the prompt). */
export function formatChatEvent(event: RunEvent): string | null {
  if (event.type === 'approval-requested') return null;
  if (event.type === 'tool-called') {
    const args = JSON.stringify(event.call.args);
    return args.length <= CALL_LINE_CHARACTERS
      ? `→ ${event.call.name}(${args})`
      : `→ ${event.call.name}(${args.slice(0, CALL_LINE_CHARACTERS)}… ${args.length.toLocaleString('en-US')} characters)`;
  }
  return formatRunEvent(event);
}
