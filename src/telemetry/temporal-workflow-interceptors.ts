// Temporal's workflow spans (RunWorkflow, HandleSignal, HandleUpdate, StartActivity, StartChildWorkflow, SignalWorkflow, ContinueAsNew) and their context headers, made without changing when the workflow's code runs.
import * as otel from '@opentelemetry/api';
import { ApplicationFailure, ApplicationFailureCategory, defaultPayloadConverter } from '@temporalio/common';
import { extractContextFromHeaders, TRACE_HEADER, UPDATE_ID_ATTR_KEY } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { ContinueAsNew, workflowInfo } from '@temporalio/workflow';
import type {
  ActivityInput,
  ContinueAsNewInput,
  DisposeInput,
  GetLogAttributesInput,
  LocalActivityInput,
  Next,
  SignalInput,
  SignalWorkflowInput,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { disableWorkflowContext, forgetSpanIds, restartSpanIds, workflowTracer } from './workflow-tracer';

type Headers = ActivityInput['headers'];

/** Errors that end a span without marking it failed: continuing as new is how a run goes on. */
const isContinueAsNew = (error: unknown): boolean => error instanceof ContinueAsNew;

function endSpan(span: otel.Span, error: unknown, acceptable?: (error: unknown) => boolean): void {
  if (error === undefined || acceptable?.(error)) {
    span.setStatus({ code: otel.SpanStatusCode.OK });
  } else {
    const benign = error instanceof ApplicationFailure && error.category === ApplicationFailureCategory.BENIGN;
    span.setStatus({
      code: benign ? otel.SpanStatusCode.UNSET : otel.SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    span.recordException(error instanceof Error ? error : String(error));
  }
  span.end();
}

/**
 * Runs `call` inside a new span and returns its own promise, untouched: the span ends on a side
 * branch when that promise settles. Temporal's interceptors await the call inside async wrappers,
 * which adds turns of the microtask queue between an activity's result and the code waiting for
 * it, so the same workflow could interleave its branches differently with tracing on and off.
 * Here a traced worker runs a workflow's code in exactly the order an untraced one does, and makes
 * one promise per span instead of about ten (each costs a stack capture in the sandbox).
 */
function traced<T>(
  name: string,
  parent: otel.Context,
  call: (spanContext: otel.Context, span: otel.Span) => Promise<T>,
  acceptable?: (error: unknown) => boolean,
): Promise<T> {
  const span = workflowTracer().startSpan(name, undefined, parent);
  const spanContext = otel.trace.setSpan(parent, span);
  let promise: Promise<T>;
  try {
    promise = otel.context.with(spanContext, () => call(spanContext, span));
  } catch (error) {
    endSpan(span, error, acceptable);
    throw error;
  }
  promise.then(
    () => endSpan(span, undefined),
    (error: unknown) => endSpan(span, error, acceptable),
  );
  return promise;
}

/** `headers` with `spanContext` in Temporal's trace header, so the activity, child or next run continues the trace. */
function withTraceHeader(headers: Headers, spanContext: otel.Context): Headers {
  const carrier: Record<string, string> = {};
  otel.propagation.inject(spanContext, carrier, otel.defaultTextMapSetter);
  return { ...headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) };
}

/**
 * No span for update validators and queries: they run only on the worker that received them,
 * never on replay, so a span there would count ids a replay does not and a new worker after a
 * crash would reuse ids the old one had exported. Update handlers and signals run on replay too.
 */
class TracingInbound implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    restartSpanIds();
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    return traced(`RunWorkflow:${workflowInfo().workflowType}`, parent, () => next(input), isContinueAsNew);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    return traced(`HandleSignal:${input.signalName}`, parent, () => next(input));
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    return traced(`HandleUpdate:${input.name}`, parent, (_context, span) => {
      span.setAttribute(UPDATE_ID_ATTR_KEY, input.updateId);
      return next(input);
    });
  }
}

class TracingOutbound implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return traced(`StartActivity:${input.activityType}`, otel.context.active(), (spanContext) =>
      next({ ...input, headers: withTraceHeader(input.headers, spanContext) }),
    );
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return traced(`StartActivity:${input.activityType}`, otel.context.active(), (spanContext) =>
      next({ ...input, headers: withTraceHeader(input.headers, spanContext) }),
    );
  }

  startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return traced(`StartChildWorkflow:${input.workflowType}`, otel.context.active(), (spanContext) =>
      next({ ...input, headers: withTraceHeader(input.headers, spanContext) }),
    );
  }

  signalWorkflow(input: SignalWorkflowInput, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>): Promise<void> {
    return traced(`SignalWorkflow:${input.signalName}`, otel.context.active(), (spanContext) =>
      next({ ...input, headers: withTraceHeader(input.headers, spanContext) }),
    );
  }

  continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    const name = `ContinueAsNew:${input.options.workflowType ?? workflowInfo().workflowType}`;
    return traced(
      name,
      otel.context.active(),
      (spanContext) => next({ ...input, headers: withTraceHeader(input.headers, spanContext) }),
      isContinueAsNew,
    );
  }

  /** The workflow logger's lines name the span they were written in. */
  getLogAttributes(input: GetLogAttributesInput, next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>): Record<string, unknown> {
    const spanContext = otel.trace.getSpan(otel.context.active())?.spanContext();
    if (!spanContext || !otel.isSpanContextValid(spanContext)) return next(input);
    return next({ trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: `0${spanContext.traceFlags.toString(16)}`, ...input });
  }
}

class TracingInternals implements WorkflowInternalsInterceptor {
  dispose(input: DisposeInput, next: Next<WorkflowInternalsInterceptor, 'dispose'>): void {
    forgetSpanIds(workflowInfo().runId);
    disableWorkflowContext();
    next(input);
  }
}

/**
 * Listed in `interceptors.workflowModules` of a tracing worker, in place of Temporal's
 * `@temporalio/interceptors-opentelemetry/lib/workflow-interceptors`: the same span names, header
 * and worker-side exporter sink, so Temporal's activity and client interceptors continue the trace.
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  workflowTracer();
  return { inbound: [new TracingInbound()], outbound: [new TracingOutbound()], internals: [new TracingInternals()] };
};
