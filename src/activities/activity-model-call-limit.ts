// Model calls made inside an activity (an instructions provider's) under the agent's provider limit: an update to the shared limiter, answered with the call's time.
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { ProviderLimitConfig } from '../config/provider-limits-schema';
import {
  DEFAULT_FAIRNESS_KEY,
  DEFAULT_PRIORITY_KEY,
  limitKey,
  limiterWorkflowId,
  limitReserveUpdate,
  ProviderLimitWireName,
  type LimitRequest,
  type ProviderLimiterInput,
} from '../protocol/provider-limits';
import { DEFAULT_OUTPUT_TOKEN_ESTIMATE } from './reserve-model-call';

/** How a call inside an activity says what it will use: tokens estimated before it goes (default 1,024). */
export interface ActivityModelCallOptions {
  estimatedTokens?: number;
}

/**
 * A function that runs `call` once the limiter of `model` on this activity's task queue lets it go,
 * when `limits` (the agent's `provider_limits`) has one for `model`; otherwise it just runs it.
 * The request is an update-with-start of the limiter (so the first caller starts it), answered when
 * it is granted; the activity then waits for the granted time. Each call is a request of its own
 * (`<workflow id>/<run id>/<activity id>/<attempt>/call-<n>`), queued with the run's priority and
 * tenant like a model step's.
 */
export function activityModelCallLimit(client: Client | undefined, limits: Record<string, ProviderLimitConfig> | undefined) {
  let calls = 0;
  return async function withinProviderLimit<Result>(
    model: string,
    call: () => Promise<Result>,
    options: ActivityModelCallOptions = {},
  ): Promise<Result> {
    // An instructions provider's own model calls (docs/provider-limits.md).
    const declared = limits?.[model];
    if (!declared || !client) return call();
    const context = Context.current();
    const { info } = context;
    const priority = info.priority;
    const key = limitKey(info.taskQueue, model);
    const limit = {
      ...(declared.requests_per_minute !== undefined ? { requestsPerMinute: declared.requests_per_minute } : {}),
      ...(declared.tokens_per_minute !== undefined ? { tokensPerMinute: declared.tokens_per_minute } : {}),
    };
    const requestId = `${info.workflowExecution?.workflowId}/${info.workflowExecution?.runId}/${info.activityId}/${info.attempt}/call-${++calls}`;
    const request: LimitRequest = {
      requestId,
      workflowId: '',
      estimatedTokens: options.estimatedTokens ?? DEFAULT_OUTPUT_TOKEN_ESTIMATE,
      priorityKey: priority?.priorityKey ?? DEFAULT_PRIORITY_KEY,
      fairnessKey: priority?.fairnessKey ?? DEFAULT_FAIRNESS_KEY,
      ...(priority?.fairnessWeight !== undefined && priority.fairnessWeight !== 1 ? { fairnessWeight: priority.fairnessWeight } : {}),
      limit,
    };
    const limiterInput: ProviderLimiterInput = { key };
    const grant = await client.workflow.executeUpdateWithStart(limitReserveUpdate, {
      args: [request],
      updateId: requestId,
      startWorkflowOperation: new WithStartWorkflowOperation(ProviderLimitWireName.limiterWorkflow, {
        workflowId: limiterWorkflowId(key),
        taskQueue: info.taskQueue,
        args: [limiterInput],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `provider limit of ${model} on ${info.taskQueue}`,
        priority: { priorityKey: 1 },
      }),
    });
    const waitMs = grant.notBeforeMs - Date.now();
    if (waitMs > 0) await context.sleep(waitMs);
    return call();
  };
}
