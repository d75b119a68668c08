// The spans and metrics of model calls, tool calls, runs and approvals, recorded with OpenTelemetry's API (loaded only by a worker that traces or measures).
import * as otel from '@opentelemetry/api';
import type { ToolResult } from '../protocol/run-types';
import type { AgentTelemetry, ModelCallDescription, ModelCallOutcome, ToolCallDescription } from './agent-telemetry';
import { Attribute, MetricName, Operation, splitModel } from './gen-ai-attributes';
import type { TelemetryRunEvent } from './telemetry-sinks';

/** Bucket boundaries the GenAI conventions advise for their two histograms. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** Records what the activities and the workflow sink report on `tracer` and `meter` (either may be a no-op one). */
export class AgentInstruments implements AgentTelemetry {
  private readonly tokenUsage: otel.Histogram;
  private readonly operationDuration: otel.Histogram;
  private readonly toolCalls: otel.Counter;
  private readonly toolDuration: otel.Histogram;
  private readonly approvalsWaiting: otel.UpDownCounter;
  private readonly approvalWait: otel.Histogram;
  private readonly runsFinished: otel.Counter;
  private readonly cost: otel.Counter;

  constructor(
    private readonly tracer: otel.Tracer,
    meter: otel.Meter,
    private readonly captureMessageContent: boolean,
  ) {
    this.tokenUsage = meter.createHistogram(MetricName.tokenUsage, {
      unit: '{token}',
      description: 'Tokens used by model calls',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.operationDuration = meter.createHistogram(MetricName.operationDuration, {
      unit: 's',
      description: 'Duration of model calls',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.toolCalls = meter.createCounter(MetricName.toolCalls, {
      unit: '{call}',
      description: 'Tool calls by tool and outcome (ok, error, retry, denied)',
    });
    this.toolDuration = meter.createHistogram(MetricName.toolDuration, {
      unit: 's',
      description: 'Duration of tool calls',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.approvalsWaiting = meter.createUpDownCounter(MetricName.approvalsWaiting, {
      unit: '{approval}',
      description: 'Tool calls waiting for an approval',
    });
    this.approvalWait = meter.createHistogram(MetricName.approvalWait, {
      unit: 's',
      description: 'Time from an approval request to its decision (or timeout)',
    });
    this.runsFinished = meter.createCounter(MetricName.runsFinished, {
      unit: '{run}',
      description: 'Agent runs and thread turns finished, by stop reason',
    });
    this.cost = meter.createCounter('durable_agents.cost', { unit: 'USD', description: 'What model calls cost, when priced' });
  }

  async modelCall<T extends ModelCallOutcome>(description: ModelCallDescription, work: () => Promise<T>): Promise<T> {
    const { provider, model } = splitModel(description.model);
    const labels = { [Attribute.operationName]: Operation.chat, [Attribute.providerName]: provider, [Attribute.requestModel]: model };
    const attributes: otel.Attributes = {
      ...labels,
      [Attribute.requestTemperature]: description.temperature,
      [Attribute.purpose]: description.purpose,
      [Attribute.step]: description.step,
      [Attribute.attempt]: description.attempt,
      ...(description.maxTokens !== null ? { [Attribute.requestMaxTokens]: description.maxTokens } : {}),
      ...(this.captureMessageContent
        ? { [Attribute.systemInstructions]: description.system, [Attribute.inputMessages]: JSON.stringify(description.messages) }
        : {}),
    };
    const started = performance.now();
    return this.tracer.startActiveSpan(`${Operation.chat} ${model}`, { kind: otel.SpanKind.CLIENT, attributes }, async (span) => {
      try {
        const outcome = await work();
        const cached = (outcome.usage as { cachedInputTokens?: number }).cachedInputTokens;
        span.setAttributes({
          [Attribute.responseModel]: model,
          [Attribute.inputTokens]: outcome.usage.inputTokens,
          [Attribute.outputTokens]: outcome.usage.outputTokens,
          [Attribute.responseFinishReasons]: [outcome.toolCalls.length > 0 ? 'tool_calls' : 'stop'],
          ...(cached !== undefined ? { [Attribute.cachedInputTokens]: cached } : {}),
          ...(this.captureMessageContent && !description.holdOutput
            ? { [Attribute.outputMessages]: JSON.stringify([{ role: 'assistant', content: outcome.text, toolCalls: outcome.toolCalls }]) }
            : {}),
        });
        const measured = { ...labels, [Attribute.responseModel]: model };
        this.tokenUsage.record(outcome.usage.inputTokens, { ...measured, [Attribute.tokenType]: 'input' });
        this.tokenUsage.record(outcome.usage.outputTokens, { ...measured, [Attribute.tokenType]: 'output' });
        this.operationDuration.record((performance.now() - started) / 1000, measured);
        if (outcome.costUsd !== undefined) this.cost.add(outcome.costUsd, measured);
        return outcome;
      } catch (error) {
        const errorType = errorTypeOf(error);
        failed(span, error, errorType);
        this.operationDuration.record((performance.now() - started) / 1000, { ...labels, [Attribute.errorType]: errorType });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  async toolCall(description: ToolCallDescription, work: () => Promise<ToolResult>): Promise<ToolResult> {
    const { call } = description;
    const attributes: otel.Attributes = {
      [Attribute.operationName]: Operation.executeTool,
      [Attribute.toolName]: call.name,
      [Attribute.toolCallId]: call.id,
      [Attribute.toolType]: 'function',
      [Attribute.step]: description.step,
      [Attribute.attempt]: description.attempt,
      ...(this.captureMessageContent ? { [Attribute.toolArguments]: JSON.stringify(call.args) } : {}),
    };
    const started = performance.now();
    const measure = (outcome: 'ok' | 'error' | 'retry') => {
      const labels = { [Attribute.toolName]: call.name, [Attribute.toolOutcome]: outcome };
      this.toolCalls.add(1, labels);
      this.toolDuration.record((performance.now() - started) / 1000, labels);
    };
    return this.tracer.startActiveSpan(`${Operation.executeTool} ${call.name}`, { kind: otel.SpanKind.INTERNAL, attributes }, async (span) => {
      try {
        const result = await work();
        span.setAttribute(Attribute.toolOutcome, result.isError ? 'error' : 'ok');
        if (result.isError) span.setStatus({ code: otel.SpanStatusCode.ERROR, message: result.errorCode ?? 'tool error' });
        if (result.isError && result.errorCode) span.setAttribute(Attribute.errorType, result.errorCode);
        if (this.captureMessageContent) span.setAttribute(Attribute.toolResult, result.content);
        measure(result.isError ? 'error' : 'ok');
        return result;
      } catch (error) {
        // A thrown error is one Temporal retries (a retryable tool error, a worker stopping).
        failed(span, error, errorTypeOf(error));
        span.setAttribute(Attribute.toolOutcome, 'retry');
        measure('retry');
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /** The worker's side of the workflow sink (never called during replay). */
  runEvent(event: TelemetryRunEvent): void {
    switch (event.kind) {
      case 'run-finished': {
        const { provider, model } = splitModel(event.model);
        this.runsFinished.add(1, {
          [Attribute.agentName]: event.agent,
          [Attribute.stopReason]: event.stopReason,
          [Attribute.providerName]: provider,
          [Attribute.requestModel]: model,
        });
        break;
      }
      case 'tool-denied':
        // Decided in the workflow (a tool policy or a before-tool hook): no activity ran, so no span or duration.
        this.toolCalls.add(1, { [Attribute.toolName]: event.toolName, [Attribute.toolOutcome]: 'denied' });
        break;
      case 'approval-requested':
        this.approvalsWaiting.add(1, { [Attribute.agentName]: event.agent, [Attribute.toolName]: event.toolName });
        break;
      case 'approval-decided':
        this.approvalsWaiting.add(-1, { [Attribute.agentName]: event.agent, [Attribute.toolName]: event.toolName });
        this.approvalWait.record(event.waitSeconds, {
          [Attribute.agentName]: event.agent,
          [Attribute.toolName]: event.toolName,
          [Attribute.approvalOutcome]: event.outcome,
        });
        break;
    }
  }
}

/** A Temporal failure's `type` (our stable error codes), else the error's class name. */
function errorTypeOf(error: unknown): string {
  const type = (error as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && type) return type;
  return error instanceof Error ? error.name : 'Error';
}

function failed(span: otel.Span, error: unknown, errorType: string): void {
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.setAttribute(Attribute.errorType, errorType);
}
