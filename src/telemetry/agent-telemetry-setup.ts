// A worker's telemetry once started: what `AgentPlugin` wires in, and how to flush and stop it. Starting it is the only place OpenTelemetry's SDK is loaded.
import type { ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import type { AgentTelemetry } from './agent-telemetry';
import type { AgentTelemetryOptions } from './telemetry-options';

/** Started telemetry: pass it to `AgentPlugin` (or `createAgentWorker`) as `telemetry`; shut it down after the worker. */
export interface AgentTelemetrySetup {
  /** @internal What the activities record spans and metrics with. */
  readonly instruments: AgentTelemetry;
  /** @internal Adds Temporal's tracing interceptors, the agent's workflow interceptor and its sink. */
  configureWorker(options: WorkerOptions): WorkerOptions;
  /** @internal The same for a replay worker (its sinks are never called). */
  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions;
  /**
   * The workflow interceptor modules a worker with this telemetry runs (Temporal's tracing one and
   * the agent's). `AgentPlugin` adds them to a bundle it makes; a bundle you prebuild with
   * `bundleWorkflowCode` needs them in `workflowInterceptorModules`.
   */
  readonly workflowInterceptorModules: string[];
  /** Where Prometheus scrapes, when a port was given. */
  readonly prometheusUrl: string | null;
  /** Whether spans are exported (a traces endpoint was given). */
  readonly tracing: boolean;
  /** Sends what is batched now (before a short-lived process exits). */
  forceFlush(): Promise<void>;
  /** Flushes and stops the exporters (and Prometheus' server). Safe to call twice. */
  shutdown(): Promise<void>;
}

/**
 * Starts traces and metrics for an agent worker: loads OpenTelemetry's SDK (optional peer
 * dependencies: install them only if you use this), sets up the exporters `options` names and
 * returns what `AgentPlugin({ telemetry })` needs. A worker without it loads none of OpenTelemetry.
 * @throws Error naming the packages to install when OpenTelemetry's SDK is not installed.
 * @example
 * import { AgentPlugin, startAgentTelemetry } from 'durable-agents/worker';
 * const telemetry = await startAgentTelemetry({ tracesEndpoint: 'http://localhost:4318/v1/traces', prometheusPort: 9464 });
 * const worker = await Worker.create({ connection, taskQueue: 'agent-runs', plugins: [new AgentPlugin({ tools, telemetry })] });
 * await worker.run();
 * await telemetry.shutdown();
 */
export async function startAgentTelemetry(options: AgentTelemetryOptions): Promise<AgentTelemetrySetup> {
  let runtime: typeof import('./open-telemetry-runtime');
  try {
    runtime = await import('./open-telemetry-runtime');
  } catch (error) {
    if ((error as { code?: string }).code === 'MODULE_NOT_FOUND') {
      throw new Error(
        `Telemetry needs OpenTelemetry's SDK, which durable-agents lists as optional peer dependencies: npm install ${TELEMETRY_PACKAGES.join(' ')} (${(error as Error).message.split('\n')[0]})`,
        { cause: error },
      );
    }
    throw error;
  }
  return runtime.createTelemetryRuntime(options);
}

/** The optional peer dependencies telemetry loads. */
export const TELEMETRY_PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-prometheus',
  '@temporalio/interceptors-opentelemetry',
];
