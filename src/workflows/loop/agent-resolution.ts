// Asking the workers for a named agent's definition: a local activity, so the answer is a marker in the history and replay never asks again.
import { ActivityFailure, ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities';
import type { ResolveAgentRequest, ResolvedAgent } from '../../protocol/agent-reference';
import { ErrorCode } from '../../protocol/errors';

/** Answers of the workers that no retry changes: the run (or the turn) fails with them. */
const REFUSALS: readonly string[] = [ErrorCode.agentNotFound, ErrorCode.agentOverrideRefused];

/**
 * The definition the worker running this workflow task offers for `request` (`resolveAgent`). A
 * local activity: it runs beside the workflow task (no task-queue round trip, one marker event),
 * and its result is read back from the marker on replay. A worker that crashes while resolving
 * leaves the workflow task to another worker, which resolves again.
 * @throws ApplicationFailure (non-retryable) of type `AgentNotFound` or `AgentOverrideRefused` when
 * the workers do not offer the agent (at that version) or refuse an override.
 */
export async function resolveAgentDefinition(request: ResolveAgentRequest): Promise<ResolvedAgent> {
  const { resolveAgent } = proxyLocalActivities<AgentActivities>({
    startToCloseTimeout: '10s',
    // Resolution reads memory: only a throwing registry (a bug) would fail it, and a bounded retry tells that apart.
    retry: { maximumAttempts: 3, initialInterval: '1s' },
  });
  try {
    return await resolveAgent(request);
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type && REFUSALS.includes(cause.type)) {
      throw ApplicationFailure.nonRetryable(cause.message, cause.type);
    }
    throw error;
  }
}
