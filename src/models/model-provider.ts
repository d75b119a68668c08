import type { JsonSchema, Message, ToolCall, ToolSpec, Usage } from '../protocol/messages';
import type { ModelPurpose } from '../protocol/run-types';
import { ErrorCode, type ErrorCodeValue } from '../protocol/errors';

/** What a model step asks of a provider: one completion of a conversation, with the tools it may call. */
export interface ModelRequest {
  /** The model name after the "provider:" prefix. */
  modelId: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  temperature: number;
  maxTokens: number | null;
  /** JSON Schema the final answer must match, or null for plain text. */
  outputSchema: JsonSchema | null;
  /** 1 on the first try of this step, 2 on the first retry, ... */
  attempt: number;
  /** What the call is for (executor step, planner step, compaction). Default: executor. */
  purpose?: ModelPurpose;
  /** For compaction: how many compactions this run made before. */
  sequence?: number;
  /** The run's step (1-based) for executor calls. */
  step?: number;
  abortSignal?: AbortSignal;
  /**
   * Called with each piece of answer text as the provider streams it. Providers that cannot stream
   * never call it; the complete text is always in the response.
   */
  onTextDelta?: (delta: string) => void;
}

/** A provider's answer: text, the tool calls the model asked for (none on a final answer), and token usage. */
export interface ModelResponse {
  /** The complete answer text (also when it was streamed through `onTextDelta`). */
  text: string;
  /** Give each call an `id`: the provider's call id, or one that is the same on every attempt. */
  toolCalls: ToolCall[];
  usage: Usage;
}

/**
 * The interface every model provider implements; register one under a prefix in a `ModelRegistry`
 * and configs reach it as `"<prefix>:<model id>"`. Providers run only inside activities: they hold
 * API keys from the worker's environment and may do any I/O. A failed call is retried by Temporal
 * as its error says: throw a `ModelError` with a stable code (other errors are classified: an
 * HTTP error of the AI SDK by its status, an abort as `ModelTimeout`, anything else as the
 * retryable `ModelServerError`).
 */
export interface ModelProvider {
  /** One completion. Honour `request.abortSignal`; stream through `request.onTextDelta` when you can. */
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** Failure classes, each with a stable code; the activity maps them onto Temporal retries. */
const RETRYABLE: ReadonlySet<ErrorCodeValue> = new Set([ErrorCode.modelRateLimited, ErrorCode.modelServerError, ErrorCode.modelTimeout]);

/**
 * A model call that failed, with a stable code that decides whether Temporal retries the step:
 * `ModelRateLimited` (after `retryAfterMs`, when given), `ModelServerError` and `ModelTimeout` are
 * retried (`max_retries` attempts in all, then the run fails); `ModelAuthFailed`, `ModelBadRequest`,
 * `ModelNotFoundError` and `MissingApiKey` fail the run; `ContextLengthExceeded` ends it with stop
 * reason `context_length_exceeded`. Throw it from your own `ModelProvider`.
 * @example
 * import { ErrorCode } from 'durable-agents';
 * import { ModelError, type ModelProvider } from 'durable-agents/worker';
 *
 * const inHouse: ModelProvider = {
 *   async complete(request) {
 *     const response = await fetch(`https://llm.internal/v1/${request.modelId}`, {
 *       method: 'POST',
 *       body: JSON.stringify({ system: request.system, messages: request.messages }),
 *       signal: request.abortSignal,
 *     });
 *     if (response.status === 429) throw new ModelError(ErrorCode.modelRateLimited, 'rate limited', Number(response.headers.get('retry-after') ?? 1) * 1000);
 *     if (!response.ok) throw new ModelError(ErrorCode.modelServerError, `HTTP ${response.status}`);
 *     const { text } = (await response.json()) as { text: string };
 *     return { text, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
 *   },
 * };
 */
export class ModelError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
    /** The server's retry-after, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = code;
  }

  /** Whether Temporal retries the model step after this error (see the class description). */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}
