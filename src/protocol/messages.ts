/**
 * Provider-neutral conversation messages. Every message enters a run's Temporal history exactly
 * once: as the workflow input (the task), a signal, or the result of the activity that produced it.
 * Safe in the workflow sandbox (types only).
 */

/** One tool call requested by the model. `id` is the provider's call id (or a deterministic one). */
export interface ToolCall {
  id: string;
  name: string;
  /** Raw arguments as the model sent them: executable and injected fields together. */
  args: Record<string, unknown>;
}

/** A message from the user: the task, or a message injected while the run goes on. */
export interface UserMessage {
  role: 'user';
  content: string;
}

/** A model reply: its text and the tool calls it asked for (none on a final answer). */
export interface AssistantMessage {
  role: 'assistant';
  content: string;
  toolCalls: ToolCall[];
}

/** The result of one tool call, as the model sees it; `isError` for error results. */
export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
}

/** One message of a run's conversation, told apart by `role`. */
export type Message = UserMessage | AssistantMessage | ToolMessage;

/** Token usage of one model call, or a sum of several. */
export interface Usage {
  /** Every input token, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache (billed at the cached-input price); absent: none reported. */
  cachedInputTokens?: number;
}

/** A tool as the model sees it: the JSON Schema of its parameters. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A JSON Schema document (kept structural: validated by Ajv in activities, never in workflows). */
export type JsonSchema = { [key: string]: unknown };
