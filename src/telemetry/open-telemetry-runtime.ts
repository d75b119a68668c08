// OpenTelemetry's SDK set up for an agent worker: span and metric exporters, Temporal's tracing interceptors, the agent's workflow interceptor and sink. Loaded only by `startAgentTelemetry`.
import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import { AgentInstruments } from './agent-instruments';
import type { AgentTelemetrySetup } from './agent-telemetry-setup';
import type { AgentTelemetryOptions } from './telemetry-options';
import type { AgentTelemetrySinks } from './telemetry-sinks';

const DEFAULT_SERVICE_NAME = 'durable-agents-worker';

/** The workflow module Temporal's OpenTelemetry plugin adds; `./temporal-workflow-interceptors` replaces it. */
const TEMPORAL_WORKFLOW_INTERCEPTORS = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** Providers and exporters for `options`; spans only with a traces endpoint, metrics only with a metrics endpoint or a Prometheus port. */
export async function createTelemetryRuntime(options: AgentTelemetryOptions): Promise<AgentTelemetrySetup> {
  const resource = new Resource({ 'service.name': options.serviceName ?? process.env.OTEL_SERVICE_NAME ?? DEFAULT_SERVICE_NAME });
  // The process's context manager and propagator, unless the app set its own (then these calls change nothing).
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());

  const spanProcessor = options.tracesEndpoint
    ? new BatchSpanProcessor(
        new OTLPTraceExporter({ url: options.tracesEndpoint }),
        options.spanExportDelayMs !== undefined ? { scheduledDelayMillis: options.spanExportDelayMs } : {},
      )
    : null;
  const tracerProvider = new BasicTracerProvider({ resource });
  if (spanProcessor) tracerProvider.addSpanProcessor(spanProcessor);
  const tracer = tracerProvider.getTracer('durable-agents');

  const readers: MetricReader[] = [];
  if (options.metricsEndpoint) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: options.metricsEndpoint }),
        exportIntervalMillis: options.metricExportIntervalMs ?? 60_000,
      }),
    );
  }
  let prometheusUrl: string | null = null;
  if (options.prometheusPort !== undefined) {
    const host = options.prometheusHost ?? '0.0.0.0';
    const prometheus = await new Promise<PrometheusExporter>((resolve, reject) => {
      const exporter: PrometheusExporter = new PrometheusExporter({ port: options.prometheusPort, host }, (error) =>
        error ? reject(new Error(`Prometheus' /metrics could not listen on ${host}:${options.prometheusPort}: ${String(error)}`)) : resolve(exporter),
      );
    });
    readers.push(prometheus);
    prometheusUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${options.prometheusPort}/metrics`;
  }
  const meterProvider = readers.length > 0 ? new MeterProvider({ resource, readers }) : null;
  const meter = meterProvider?.getMeter('durable-agents') ?? otel.metrics.getMeterProvider().getMeter('durable-agents');
  const instruments = new AgentInstruments(tracer, meter, options.captureMessageContent ?? false);

  // Temporal's plugin: client → workflow → activity context in headers, and its own spans
  // (StartWorkflow, RunWorkflow, StartActivity, RunActivity), workflow spans through a sink.
  const temporalTracing = spanProcessor ? new OpenTelemetryPlugin({ resource, spanProcessor, tracer }) : null;
  const sinks: InjectedSinks<AgentTelemetrySinks> = {
    agentTelemetry: { runEvent: { fn: (_info, event) => instruments.runEvent(event), callDuringReplay: false } },
  };
  // Temporal's spans first (made by ours, see temporal-workflow-interceptors.ts): the RunWorkflow
  // span is the parent of the run's invoke_agent span. Temporal's plugin would add its own module only to a worker that already has a
  // workflowsPath; the agent plugin picks the workflow source later, so the modules are added here.
  const workflowInterceptorModules = [
    ...(spanProcessor ? [require.resolve('./temporal-workflow-interceptors')] : []),
    require.resolve('./workflow-interceptors'),
  ];
  const withAgentInterceptors = <T extends WorkerOptions | ReplayWorkerOptions>(workerOptions: T): T => {
    // A worker given a workflowsPath gets Temporal's own module from its plugin as well: its spans
    // would double ours, so it is taken out.
    const existing = (workerOptions.interceptors?.workflowModules ?? []).filter((module) => module !== TEMPORAL_WORKFLOW_INTERCEPTORS);
    return {
      ...workerOptions,
      interceptors: {
        ...workerOptions.interceptors,
        workflowModules: [...existing, ...workflowInterceptorModules.filter((module) => !existing.includes(module))],
      },
      sinks: { ...workerOptions.sinks, ...sinks },
    };
  };

  let stopped: Promise<void> | null = null;
  return {
    instruments,
    workflowInterceptorModules,
    configureWorker: (workerOptions) => withAgentInterceptors(temporalTracing ? temporalTracing.configureWorker(workerOptions) : workerOptions),
    configureReplayWorker: (workerOptions) =>
      withAgentInterceptors(temporalTracing ? temporalTracing.configureReplayWorker(workerOptions) : workerOptions),
    prometheusUrl,
    tracing: spanProcessor !== null,
    async forceFlush() {
      await Promise.all([tracerProvider.forceFlush(), meterProvider?.forceFlush()]);
    },
    shutdown() {
      stopped ??= Promise.all([tracerProvider.shutdown(), meterProvider?.shutdown()]).then(() => undefined);
      return stopped;
    },
  };
}
