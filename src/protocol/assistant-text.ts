// The answer text of a conversation, pure: shared by the workflow (a run that stops early) and the fork activity.
import type { Message } from './messages';

/** The text of the last assistant message, for a run that stops early. */
export function lastAssistantText(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant' && message.content) return message.content;
  }
  return '';
}
