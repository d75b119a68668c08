// Where a worker's traces and metrics go: the options of `startAgentTelemetry`, and the same read from the standard OpenTelemetry environment variables.

/** Traces and metrics of an agent worker. Nothing is recorded for what is left out. */
export interface AgentTelemetryOptions {
  /** `service.name` of the spans and metrics. Default: OTEL_SERVICE_NAME, else `durable-agents-worker`. */
  serviceName?: string;
  /** Traces go to this OTLP/HTTP URL (`http://collector:4318/v1/traces`). */
  tracesEndpoint?: string;
  /** Metrics go to this OTLP/HTTP URL (`http://collector:4318/v1/metrics`). */
  metricsEndpoint?: string;
  /** Serve Prometheus' `/metrics` on this port (and `prometheusHost`, default all interfaces). */
  prometheusPort?: number;
  prometheusHost?: string;
  /**
   * Record prompts, answers, tool arguments and tool results on the spans (the GenAI conventions'
   * opt-in content attributes). Default: false, for they may hold personal data and secrets.
   */
  captureMessageContent?: boolean;
  /** How long spans wait in their batch before they are sent, in ms. Default: OTEL_BSP_SCHEDULE_DELAY, else 5000. */
  spanExportDelayMs?: number;
  /** How often OTLP metrics are sent, in ms. Default: 60000. */
  metricExportIntervalMs?: number;
}

/**
 * The options the standard variables ask for, or null when none asks for anything (then nothing of
 * OpenTelemetry is loaded): OTEL_EXPORTER_OTLP_ENDPOINT (traces and metrics), or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (each a full URL, as the
 * specification reads them), OTEL_EXPORTER_PROMETHEUS_PORT / _HOST, OTEL_SERVICE_NAME,
 * OTEL_METRIC_EXPORT_INTERVAL (ms), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 * OTEL_SDK_DISABLED=true turns it all off; an empty variable counts as unset.
 * @throws Error naming the variable when a port is not a number.
 * @example
 * const options = telemetryOptionsFromEnvironment(process.env);
 * const telemetry = options ? await startAgentTelemetry(options) : undefined;
 */
export function telemetryOptionsFromEnvironment(given: NodeJS.ProcessEnv): AgentTelemetryOptions | null {
  const environment = withoutEmptyValues(given);
  if (environment.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return null;
  const base = environment.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const tracesEndpoint = environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined);
  const metricsEndpoint = environment.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? (base ? `${base}/v1/metrics` : undefined);
  const prometheusPort = environment.OTEL_EXPORTER_PROMETHEUS_PORT;
  if (prometheusPort !== undefined && !/^\d+$/.test(prometheusPort)) {
    throw new Error(`OTEL_EXPORTER_PROMETHEUS_PORT must be a port number, not '${prometheusPort}'`);
  }
  if (!tracesEndpoint && !metricsEndpoint && prometheusPort === undefined) return null;
  const metricInterval = environment.OTEL_METRIC_EXPORT_INTERVAL;
  if (metricInterval !== undefined && !/^\d+$/.test(metricInterval)) {
    throw new Error(`OTEL_METRIC_EXPORT_INTERVAL must be a number of milliseconds, not '${metricInterval}'`);
  }
  return {
    ...(environment.OTEL_SERVICE_NAME ? { serviceName: environment.OTEL_SERVICE_NAME } : {}),
    ...(tracesEndpoint ? { tracesEndpoint } : {}),
    ...(metricsEndpoint ? { metricsEndpoint } : {}),
    ...(prometheusPort !== undefined ? { prometheusPort: Number(prometheusPort) } : {}),
    ...(environment.OTEL_EXPORTER_PROMETHEUS_HOST ? { prometheusHost: environment.OTEL_EXPORTER_PROMETHEUS_HOST } : {}),
    ...(metricInterval !== undefined ? { metricExportIntervalMs: Number(metricInterval) } : {}),
    captureMessageContent: environment.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true',
  };
}

/**
 * The OTEL_* variables with empty ones dropped: OpenTelemetry's environment specification reads
 * an empty value as unset, and compose passes `${OTEL_…:-}` as an empty string when the user's
 * shell has none.
 */
function withoutEmptyValues(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(environment).filter(([name, value]) => !name.startsWith('OTEL_') || (value !== undefined && value.trim() !== '')),
  );
}
