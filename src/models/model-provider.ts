import type { JsonSchema, Message, ToolCall, ToolSpec, Usage } from '../shared/messages';
import type { ModelPurpose } from '../shared/run-types';
import { ErrorCode, type ErrorCodeValue } from '../shared/errors';

/**
 * The interface every model provider implements. Providers run only inside activities: they hold
 * API keys from the worker's environment and may do any I/O.
 */
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

export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
}

export interface ModelProvider {
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** Failure classes, each with a stable code; the activity maps them onto Temporal retries. */
const RETRYABLE: ReadonlySet<ErrorCodeValue> = new Set([
  ErrorCode.modelRateLimited,
  ErrorCode.modelServerError,
  ErrorCode.modelTimeout,
]);

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

  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}
