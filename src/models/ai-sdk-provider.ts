import type { LanguageModel, ModelMessage, StreamTextResult, ToolSet } from 'ai';
import { ErrorCode } from '../protocol/errors';
import type { Message } from '../protocol/messages';
import { isStrictCompatible } from './strict-json-schema';
import { ModelError, type ModelProvider, type ModelRequest, type ModelResponse } from './model-provider';
import { classifyProviderError } from './provider-errors';

/**
 * Real providers through the Vercel AI SDK (one well-kept library for OpenAI, Anthropic and
 * OpenAI-compatible servers, with tool calling and usage mapped the same way for all three).
 * Keys and base URLs come from the worker's environment only, read when a step runs, so a missing
 * key fails that step with an error naming the variable and never touches workflow inputs.
 * Retries are Temporal's: the SDK's own retries are off.
 *
 * The SDK and the provider's package load on the first `complete()`, not when the module or a
 * provider is created: a worker registers every provider by default, and one whose agents use
 * only scripted or custom models never loads them.
 */

let aiSdk: typeof import('ai') | undefined;

function loadAiSdk(): typeof import('ai') {
  return (aiSdk ??= require('ai') as typeof import('ai'));
}

export type ProviderKind = 'openai' | 'anthropic' | 'openai-compatible';

interface ProviderSettings {
  apiKeyVariable: string;
  baseUrlVariable: string;
  apiKeyRequired: boolean;
}

export const PROVIDER_SETTINGS: Record<ProviderKind, ProviderSettings> = {
  openai: { apiKeyVariable: 'OPENAI_API_KEY', baseUrlVariable: 'OPENAI_BASE_URL', apiKeyRequired: true },
  anthropic: { apiKeyVariable: 'ANTHROPIC_API_KEY', baseUrlVariable: 'ANTHROPIC_BASE_URL', apiKeyRequired: true },
  'openai-compatible': {
    apiKeyVariable: 'OPENAI_COMPATIBLE_API_KEY',
    baseUrlVariable: 'OPENAI_COMPATIBLE_BASE_URL',
    apiKeyRequired: false,
  },
};

export interface AiSdkProviderOptions {
  /**
   * Stream answers (server-sent events) so text reaches `onTextDelta` as it is written. Default:
   * on, unless the worker's environment sets AGENT_MODEL_STREAMING=off (for servers that cannot).
   */
  streaming?: boolean;
}

export class AiSdkProvider implements ModelProvider {
  private readonly streaming: boolean;

  constructor(
    private readonly kind: ProviderKind,
    private readonly environment: NodeJS.ProcessEnv = process.env,
    options: AiSdkProviderOptions = {},
  ) {
    this.streaming = options.streaming ?? environmentFlag(environment.AGENT_MODEL_STREAMING, true);
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const model = this.languageModel(request.modelId);
    const { generateText, jsonSchema, Output, streamText } = loadAiSdk();
    const tools: ToolSet = Object.fromEntries(
      request.tools.map((tool) => [
        tool.name,
        { description: tool.description, inputSchema: jsonSchema(tool.parameters as Parameters<typeof jsonSchema>[0]) },
      ]),
    );
    const call = {
      model,
      system: request.system || undefined,
      messages: toModelMessages(request.messages),
      tools: request.tools.length > 0 ? tools : undefined,
      temperature: request.temperature,
      maxOutputTokens: request.maxTokens ?? undefined,
      // Provider-native structured output (OpenAI response_format, Anthropic output format or
      // JSON tool): the SDK picks each provider's mechanism. The activity validates the answer.
      ...(request.outputSchema
        ? {
            output: Output.object({ schema: jsonSchema(request.outputSchema as Parameters<typeof jsonSchema>[0]) }),
            providerOptions: { openai: { strictJsonSchema: isStrictCompatible(request.outputSchema) } },
          }
        : {}),
      maxRetries: 0,
      abortSignal: request.abortSignal,
    };
    try {
      if (this.streaming && request.onTextDelta) {
        // Stream errors are thrown from `streamed` and classified below, not logged by the SDK.
        return await streamed(streamText({ ...call, onError: () => undefined }), request.onTextDelta);
      }
      const result = await generateText(call);
      return toResponse(result.text, result.toolCalls, result.usage);
    } catch (error) {
      throw withoutSecret(classifyProviderError(error), this.environment[PROVIDER_SETTINGS[this.kind].apiKeyVariable]);
    }
  }

  private languageModel(modelId: string): LanguageModel {
    const settings = PROVIDER_SETTINGS[this.kind];
    const apiKey = this.environment[settings.apiKeyVariable];
    const baseURL = this.environment[settings.baseUrlVariable];
    if (settings.apiKeyRequired && !apiKey) {
      throw new ModelError(ErrorCode.missingApiKey, `${settings.apiKeyVariable} is not set in the worker's environment`);
    }
    switch (this.kind) {
      case 'openai': {
        const { createOpenAI } = require('@ai-sdk/openai') as typeof import('@ai-sdk/openai');
        return createOpenAI({ apiKey, baseURL }).chat(modelId);
      }
      case 'anthropic': {
        const { createAnthropic } = require('@ai-sdk/anthropic') as typeof import('@ai-sdk/anthropic');
        return createAnthropic({ apiKey, baseURL })(modelId);
      }
      case 'openai-compatible': {
        if (!baseURL) {
          throw new ModelError(ErrorCode.missingApiKey, `${settings.baseUrlVariable} is not set in the worker's environment`);
        }
        const { createOpenAICompatible } = require('@ai-sdk/openai-compatible') as typeof import('@ai-sdk/openai-compatible');
        return createOpenAICompatible({
          name: 'openai-compatible',
          baseURL,
          apiKey,
          // Many local servers (vLLM, Ollama, LM Studio) accept json_schema; opt in per worker.
          supportsStructuredOutputs: environmentFlag(this.environment.OPENAI_COMPATIBLE_STRUCTURED_OUTPUTS, false),
        }).chatModel(modelId);
      }
    }
  }
}

/** A yes/no setting from the environment: on/true/yes/1 or off/false/no/0; anything else is the default. */
function environmentFlag(value: string | undefined, fallback: boolean): boolean {
  if (value && /^(1|on|true|yes)$/i.test(value.trim())) return true;
  if (value && /^(0|off|false|no)$/i.test(value.trim())) return false;
  return fallback;
}

/** Reads a streamed answer, passing text deltas on; a failure in the stream is thrown. */
async function streamed(result: StreamTextResult<ToolSet, never>, onTextDelta: (delta: string) => void): Promise<ModelResponse> {
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') onTextDelta(part.text);
    else if (part.type === 'error') throw part.error;
  }
  return toResponse(await result.text, await result.toolCalls, await result.usage);
}

function toResponse(
  text: string,
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>,
  usage: { inputTokens: number | undefined; outputTokens: number | undefined; inputTokenDetails?: { cacheReadTokens: number | undefined } },
): ModelResponse {
  // Cached prompt tokens are billed at their own price: kept apart when the provider reports them.
  const cachedInputTokens = usage.inputTokenDetails?.cacheReadTokens;
  return {
    text,
    toolCalls: toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: (call.input ?? {}) as Record<string, unknown> })),
    usage: { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, ...(cachedInputTokens ? { cachedInputTokens } : {}) },
  };
}

function toModelMessages(messages: Message[]): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant':
        return {
          role: 'assistant',
          content: [
            ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
            ...message.toolCalls.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.args,
            })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: message.toolName,
              output: message.isError ? { type: 'error-text', value: message.content } : { type: 'text', value: message.content },
            },
          ],
        };
    }
  });
}

/**
 * Some servers and gateways echo the key they were sent in their error text. The message becomes
 * an activity failure (history, logs, the CLI), so the key is cut out of it here.
 */
function withoutSecret(error: ModelError, secret: string | undefined): ModelError {
  if (!secret || !error.message.includes(secret)) return error;
  return new ModelError(error.code, error.message.split(secret).join('[redacted]'), error.retryAfterMs);
}
