// Workflow interceptors a tracing worker adds to the bundle: an `invoke_agent {agent}` span around each agent run and thread turn, and run events sent to the worker's metrics.
import * as otel from '@opentelemetry/api';
import {
  ContinueAsNew,
  proxySinks,
  workflowInfo,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type Next,
} from '@temporalio/workflow';
import type { RunEvent } from '../protocol/run-events';
import { observeRunEvents } from '../workflows/loop/run-event-observer';
import { Attribute, Operation, splitModel } from './gen-ai-attributes';
import type { AgentTelemetrySinks } from './telemetry-sinks';

const { agentTelemetry } = proxySinks<AgentTelemetrySinks>();

/** The workflow types that are agent runs (others in the same bundle, the app's own, get no agent span). */
const AGENT_WORKFLOW_TYPES = new Set(['agentRun', 'agentThread']);

/**
 * Spans made here are deterministic: the sandbox's clock and random numbers are the workflow's, so
 * a replay on another worker rebuilds the same span ids, and Temporal's span exporter sink does not
 * export during replay. A run's span is exported once, by the worker that ends it.
 */
class InvokeAgentSpans implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const info = workflowInfo();
    if (!AGENT_WORKFLOW_TYPES.has(info.workflowType)) return next(input);
    const started = input.args[0] as
      { config?: { name?: string; model?: string }; agent?: { name?: string }; agentVersion?: { name: string; version: string } } | undefined;
    const config = started?.config;
    const agent = config?.name ?? started?.agent?.name ?? info.workflowType;
    // A named agent's version: carried by a continuation, or resolved by this execution (`agent-resolved`).
    const version = started?.agentVersion ? `${started.agentVersion.name}@${started.agentVersion.version}` : undefined;
    const model = splitModel(config?.model ?? '');
    const tracer = otel.trace.getTracer('durable-agents');
    return tracer.startActiveSpan(
      `${Operation.invokeAgent} ${agent}`,
      {
        kind: otel.SpanKind.INTERNAL,
        attributes: {
          [Attribute.operationName]: Operation.invokeAgent,
          [Attribute.agentName]: agent,
          [Attribute.conversationId]: info.workflowId,
          [Attribute.runId]: info.runId,
          [Attribute.providerName]: model.provider,
          [Attribute.requestModel]: model.model,
          ...(version ? { [Attribute.agentVersion]: version } : {}),
        },
      },
      async (span) => {
        observeRunEvents(eventObserver(span, tracer, agent, config?.model ?? '', version));
        try {
          return await next(input);
        } catch (error) {
          // Continuing as new (long runs, handoffs) is how a run goes on, not a failure.
          if (!(error instanceof ContinueAsNew)) {
            span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
            span.setAttribute(Attribute.errorType, error instanceof Error ? error.name : 'Error');
          }
          throw error;
        } finally {
          observeRunEvents(undefined);
          span.end();
        }
      },
    );
  }
}

/** Turns the run's events into attributes of its span, thread-turn spans, and metric events for the worker. */
function eventObserver(span: otel.Span, tracer: otel.Tracer, agent: string, model: string, startVersion?: string): (event: RunEvent) => void {
  let version = startVersion;
  const approvalsRequestedAt = new Map<string, number>();
  const turns = new Map<number, otel.Span>();
  const runContext = otel.trace.setSpan(otel.context.active(), span);
  return (event) => {
    switch (event.type) {
      case 'run-completed':
        span.setAttribute(Attribute.stopReason, event.stopReason);
        agentTelemetry.runEvent({ kind: 'run-finished', agent, model, stopReason: event.stopReason });
        break;
      case 'run-failed':
        agentTelemetry.runEvent({ kind: 'run-finished', agent, model, stopReason: 'failed' });
        break;
      case 'tool-completed':
        if (event.metadata.status === 'denied') agentTelemetry.runEvent({ kind: 'tool-denied', agent, toolName: event.toolName });
        break;
      case 'handoff':
        span.setAttribute(Attribute.handoffTo, event.to);
        break;
      case 'agent-resolved':
        version = `${event.name}@${event.version}`;
        span.setAttribute(Attribute.agentVersion, version);
        break;
      case 'approval-requested':
        approvalsRequestedAt.set(event.request.approvalId, event.request.requestedAt);
        agentTelemetry.runEvent({ kind: 'approval-requested', agent, toolName: event.request.toolName });
        break;
      case 'approval-decided': {
        const requestedAt = approvalsRequestedAt.get(event.approvalId) ?? event.at;
        approvalsRequestedAt.delete(event.approvalId);
        agentTelemetry.runEvent({
          kind: 'approval-decided',
          agent,
          toolName: event.toolName,
          outcome: event.outcome,
          waitSeconds: (event.at - requestedAt) / 1000,
        });
        break;
      }
      case 'turn-started':
        turns.set(
          event.turn,
          tracer.startSpan(
            `${Operation.invokeAgent} ${agent}`,
            {
              kind: otel.SpanKind.INTERNAL,
              attributes: {
                [Attribute.operationName]: Operation.invokeAgent,
                [Attribute.agentName]: agent,
                [Attribute.turn]: event.turn,
                ...(version ? { [Attribute.agentVersion]: version } : {}),
              },
            },
            runContext,
          ),
        );
        break;
      case 'turn-completed':
        turns.get(event.turn)?.setAttribute(Attribute.stopReason, event.stopReason);
        turns.get(event.turn)?.end();
        turns.delete(event.turn);
        agentTelemetry.runEvent({ kind: 'run-finished', agent, model, stopReason: event.stopReason });
        break;
      default:
        break;
    }
  };
}

/** The factory Temporal calls for each workflow (listed in `interceptors.workflowModules` after Temporal's own OpenTelemetry module). */
export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new InvokeAgentSpans()] });
