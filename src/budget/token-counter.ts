import type { Tiktoken } from 'js-tiktoken';
import type { Message, ToolSpec } from '../protocol/messages';

/**
 * Token counting with js-tiktoken (offline: the o200k_base ranks ship with the package). Exact for
 * current OpenAI models, a close estimate for others: budgets are advisory limits, not billing.
 * The package (several MB of ranks) loads on the first count, so a worker whose agents set no
 * token budget never loads it.
 */
let encoder: Tiktoken | undefined;

/** Framing tokens each message costs beyond its text (role, separators). */
const PER_MESSAGE_OVERHEAD = 4;

export function countTokens(text: string): number {
  encoder ??= (require('js-tiktoken') as typeof import('js-tiktoken')).getEncoding('o200k_base');
  return encoder.encode(text).length;
}

export function countMessageTokens(message: Message): number {
  const text = message.role === 'assistant' && message.toolCalls.length > 0 ? message.content + JSON.stringify(message.toolCalls) : message.content;
  return countTokens(text) + PER_MESSAGE_OVERHEAD;
}

/** Tokens of everything sent before the messages: the system prompt and the tool schemas. */
export function countPreambleTokens(system: string, tools: ToolSpec[]): number {
  return countTokens(system) + (tools.length > 0 ? countTokens(JSON.stringify(tools)) : 0);
}
