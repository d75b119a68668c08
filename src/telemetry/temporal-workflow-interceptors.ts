// Temporal's OpenTelemetry workflow interceptors without the spans of update validators and queries, whose random span ids would shift every later id after a replay.
import { OpenTelemetryInboundInterceptor, OpenTelemetryInternalsInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Next, QueryInput, UpdateInput, WorkflowInboundCallsInterceptor, WorkflowInterceptorsFactory } from '@temporalio/workflow';

/**
 * Span ids in the sandbox come from the workflow's seeded random numbers, so a replay rebuilds the
 * same ids, but only if it draws the same numbers in the same order. An update's validator and a
 * query run on the worker that received them and never on replay: their spans would draw numbers
 * the replay does not, and after a worker crash the new worker would give later spans ids the old
 * one had already exported (seen: a retried tool call's StartActivity span with the id of the
 * previous model step's). Validators and queries get no span; update handlers, signals, activities,
 * child workflows and continue-as-new keep Temporal's spans and context propagation.
 */
class ReplaySafeInboundInterceptor extends OpenTelemetryInboundInterceptor {
  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    next(input);
  }

  override async handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return next(input);
  }
}

/** Listed in `interceptors.workflowModules` in place of `@temporalio/interceptors-opentelemetry/lib/workflow-interceptors`. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new ReplaySafeInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
