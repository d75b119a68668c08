// Compaction, pure: which part of a conversation is summarised and what replaces it.
import type { Message } from '../../protocol/messages';

/** Turns (an assistant message and the tool results after it) kept verbatim by compaction. */
export const KEEP_RECENT_TURNS = 2;

/**
 * Where the kept part of a conversation starts when compacting: at the assistant message that
 * opens the last `KEEP_RECENT_TURNS` turns, so a tool call is never separated from its results.
 * Null when there is nothing older than that to summarise.
 */
export function compactionKeepFrom(messages: readonly Message[], taskIndex: number): number | null {
  let keepFrom = messages.length;
  let turns = 0;
  for (let index = messages.length - 1; index > taskIndex && turns < KEEP_RECENT_TURNS; index--) {
    if (messages[index]?.role === 'assistant') {
      keepFrom = index;
      turns++;
    }
  }
  return keepFrom > taskIndex + 1 ? keepFrom : null;
}

/** The conversation after compaction: everything up to the task, the summary, the recent turns. */
export function compactedMessages(messages: readonly Message[], taskIndex: number, keepFrom: number, summary: string): Message[] {
  return [
    ...messages.slice(0, taskIndex + 1),
    { role: 'user', content: `Summary of the earlier part of this conversation:\n${summary}` },
    ...messages.slice(keepFrom),
  ];
}
