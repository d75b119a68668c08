// The tracer of the workflow sandbox: spans sent to the worker through Temporal's span exporter sink as they end, without promises, with ids that draw nothing from the workflow's random numbers.
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime';
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, type IdGenerator, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter';
import { workflowInfo } from '@temporalio/workflow';

/**
 * Hands each ended span to Temporal's `exporter` sink at once. OpenTelemetry's SimpleSpanProcessor
 * (what Temporal's own workflow interceptors use) exports through a chain of promises per span,
 * and every promise made in the sandbox costs a stack capture (the SDK's stack trace query): in a
 * profile of a 10-step run that was most of tracing's cost in the workflow. A sink call is
 * synchronous (the worker reads it when the activation completes), so nothing here needs one.
 */
class SinkSpanProcessor implements SpanProcessor {
  private readonly exporter = new SpanExporter();

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    this.exporter.export([span], () => undefined);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Spans made so far by each workflow execution in this sandbox, by run id. */
const spansMade = new Map<string, number>();

/** 32 well-mixed bits of `text` (FNV-1a, then an avalanche so that consecutive counters differ in every bit). */
function hash32(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function hexId(key: string, words: number): string {
  let id = '';
  for (let word = 0; word < words; word++)
    id += hash32(key, word + 1)
      .toString(16)
      .padStart(8, '0');
  // An all-zero id is invalid in OpenTelemetry; 2^-64 at worst, but never emit one.
  return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
}

/**
 * Span and trace ids from the run id and the span's position in the run, not from `Math.random`.
 * The sandbox's `Math.random` is the workflow's seeded generator: ids drawn from it would make a
 * traced worker draw numbers an untraced one does not, and any value the workflow draws later
 * (`uuid4()`, a child's id) would differ between them, so a run could not move between a worker
 * with tracing and one without. Counted ids are as deterministic (a replay makes the same spans in
 * the same order) and leave the workflow's numbers alone.
 */
class CountedIdGenerator implements IdGenerator {
  generateTraceId(): string {
    return hexId(this.nextKey('trace'), 4);
  }

  generateSpanId(): string {
    return hexId(this.nextKey('span'), 2);
  }

  private nextKey(kind: string): string {
    const runId = workflowInfo().runId;
    const made = spansMade.get(runId) ?? 0;
    spansMade.set(runId, made + 1);
    return `${kind}/${runId}/${made}`;
  }
}

/** Starts a workflow execution's count again: called as its run begins, so a replay from the start makes the same ids. */
export function restartSpanIds(): void {
  spansMade.set(workflowInfo().runId, 0);
}

/** Forgets a workflow execution's count when the worker drops it from its cache. */
export function forgetSpanIds(runId: string): void {
  spansMade.delete(runId);
}

let contextManager: ContextManager | undefined;
let tracer: otel.Tracer | undefined;

/**
 * The sandbox's tracer, registered once as OpenTelemetry's global provider (so `otel.trace.getTracer`
 * in the agent's own interceptors uses it too) with Temporal's sandbox context manager.
 */
export function workflowTracer(): otel.Tracer {
  if (!tracer) {
    contextManager = new ContextManager();
    const provider = new BasicTracerProvider({ idGenerator: new CountedIdGenerator() });
    provider.addSpanProcessor(new SinkSpanProcessor());
    provider.register({ contextManager });
    tracer = provider.getTracer('@temporalio/interceptor-workflow');
  }
  return tracer;
}

/** Stops the context manager when the sandbox is disposed (Temporal's interceptors do the same). */
export function disableWorkflowContext(): void {
  contextManager?.disable();
}
