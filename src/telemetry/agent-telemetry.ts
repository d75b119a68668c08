// What the activities report to traces and metrics: an interface with a do-nothing default, so a worker that does not trace loads no OpenTelemetry code.
import type { ModelResponse } from '../models/model-provider';
import type { Message, ToolCall } from '../protocol/messages';
import type { ModelPurpose, ToolResult } from '../protocol/run-types';

/** A model call about to be made: what its `chat {model}` span and metrics are labelled with. */
export interface ModelCallDescription {
  /** The config's `provider:model`. */
  model: string;
  purpose: ModelPurpose;
  step: number;
  /** 1 on the first try, 2 on the first retry, ... */
  attempt: number;
  temperature: number;
  maxTokens: number | null;
  /** Recorded only when the telemetry captures message contents (off by default). */
  system: string;
  messages: Message[];
  /** After-model hooks may redact the reply: its text is then not captured (only the recorded text may leave the worker). */
  holdOutput?: boolean;
}

/** What a model call gave back; `costUsd` is left for cost accounting to fill (a metric counts it when present). */
export type ModelCallOutcome = ModelResponse & { costUsd?: number };

/** A tool call about to run: its `execute_tool {name}` span and metrics. */
export interface ToolCallDescription {
  call: ToolCall;
  step: number;
  attempt: number;
}

/**
 * Spans and metrics around the activities' work. Each method runs `work` and returns its result
 * (or throws its error) unchanged; what it records never changes what the run does.
 */
export interface AgentTelemetry {
  modelCall<T extends ModelCallOutcome>(description: ModelCallDescription, work: () => Promise<T>): Promise<T>;
  toolCall(description: ToolCallDescription, work: () => Promise<ToolResult>): Promise<ToolResult>;
}

/** The default: records nothing and costs one function call. */
export const NO_TELEMETRY: AgentTelemetry = {
  modelCall: (_description, work) => work(),
  toolCall: (_description, work) => work(),
};
