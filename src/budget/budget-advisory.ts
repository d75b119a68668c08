import type { Message, ToolSpec } from '../protocol/messages';
import { countMessageTokens, countPreambleTokens } from './token-counter';

/** How full the context window is. */
export interface BudgetReading {
  usedTokens: number;
  contextWindow: number;
}

export function advisoryText(reading: BudgetReading): string {
  const left = Math.max(0, reading.contextWindow - reading.usedTokens);
  const percent = ((reading.usedTokens / reading.contextWindow) * 100).toFixed(1);
  return `[context budget: ${reading.usedTokens} tokens used of ${reading.contextWindow} (${percent}%), ${left} left]`;
}

/**
 * `per-message` budget awareness: a copy of the conversation in which every assistant message and
 * tool result carries an advisory with the tokens used up to and including it, the advisory's own
 * text (and the advisories before it) counted. Computed from the conversation alone, so a retried
 * step sends the same text, and nothing is added to the history.
 */
export function withBudgetAdvisories(system: string, tools: ToolSpec[], messages: Message[], contextWindow: number): Message[] {
  let used = countPreambleTokens(system, tools);
  return messages.map((message) => {
    if (message.role === 'user') {
      used += countMessageTokens(message);
      return message;
    }
    const advised = withAdvisory(message, used, contextWindow);
    used += countMessageTokens(advised);
    return advised;
  });
}

/**
 * `message` with the advisory that counts it, itself included: the number in the text changes the
 * text's length, so the count is settled by a few rounds (it converges at once in practice; the
 * last round's text is used, off by a token at most).
 */
function withAdvisory<T extends Message>(message: T, usedBefore: number, contextWindow: number): T {
  const advised = (usedTokens: number): T => ({ ...message, content: `${message.content}\n\n${advisoryText({ usedTokens, contextWindow })}` });
  let shown = usedBefore + countMessageTokens(message);
  for (let round = 0; round < 4; round++) {
    const counted = usedBefore + countMessageTokens(advised(shown));
    if (counted === shown) break;
    shown = counted;
  }
  return advised(shown);
}

/** Tokens of a whole prompt. */
export function promptTokens(system: string, tools: ToolSpec[], messages: Message[]): number {
  return messages.reduce((sum, message) => sum + countMessageTokens(message), countPreambleTokens(system, tools));
}
