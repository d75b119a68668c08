import type { Message, ToolSpec } from '../shared/messages';
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
 * tool result carries an advisory with the tokens used up to and including it. Computed from the
 * conversation alone, so a retried step sends the same text, and nothing is added to the history.
 */
export function withBudgetAdvisories(system: string, tools: ToolSpec[], messages: Message[], contextWindow: number): Message[] {
  let used = countPreambleTokens(system, tools);
  return messages.map((message) => {
    used += countMessageTokens(message);
    if (message.role === 'user') return message;
    return { ...message, content: `${message.content}\n\n${advisoryText({ usedTokens: used, contextWindow })}` };
  });
}

/** Tokens of a whole prompt. */
export function promptTokens(system: string, tools: ToolSpec[], messages: Message[]): number {
  return messages.reduce((sum, message) => sum + countMessageTokens(message), countPreambleTokens(system, tools));
}
