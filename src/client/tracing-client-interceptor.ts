// The client side of tracing: Temporal's interceptor that puts the caller's trace context into the headers of the runs it starts, loaded only when asked for.
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { TELEMETRY_PACKAGES } from '../telemetry/agent-telemetry-setup';

/**
 * Temporal's `OpenTelemetryWorkflowClientInterceptor`: a start (and signals, queries, updates)
 * carries the active context, so the run's `RunWorkflow` and `invoke_agent` spans are children of
 * the caller's span. Loaded lazily: a client that does not trace never loads OpenTelemetry.
 * @throws Error naming the packages to install when they are missing.
 */
export async function tracingClientInterceptor(): Promise<WorkflowClientInterceptor> {
  try {
    const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry');
    return new OpenTelemetryWorkflowClientInterceptor();
  } catch (error) {
    if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      `AgentClient's tracing needs OpenTelemetry, an optional peer dependency of durable-agents: npm install ${TELEMETRY_PACKAGES.slice(0, 1).join(' ')} @temporalio/interceptors-opentelemetry`,
      { cause: error },
    );
  }
}
