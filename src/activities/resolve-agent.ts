// The local activity a run or thread started by an agent's name resolves it with, on the worker that defines it.
import { ApplicationFailure } from '@temporalio/common';
import type { AgentRegistry } from '../agents/agent-registry';
import { resolveAgentReference } from '../agents/reference-resolution';
import type { ResolveAgentRequest, ResolvedAgent } from '../protocol/agent-reference';
import { AgentRuntimeError } from '../protocol/errors';

export interface AgentResolutionDependencies {
  /** The agents this worker defines (AgentPlugin's `agents` / `agentsFolder`); absent: none. */
  agents?: AgentRegistry;
}

/**
 * Resolves a named agent on this worker (`resolveAgentReference`). Run as a local activity: its
 * result is a marker in the workflow's history, so replay reads the definition used there and
 * never asks a worker again. An unknown name or version, or a refused override, fails it for good
 * (a non-retryable failure of that code: no retry would change the answer).
 */
export function createResolveAgent(dependencies: AgentResolutionDependencies) {
  return async function resolveAgent(request: ResolveAgentRequest): Promise<ResolvedAgent> {
    try {
      return resolveAgentReference(dependencies.agents, request);
    } catch (error) {
      if (error instanceof AgentRuntimeError) throw ApplicationFailure.nonRetryable(error.message, error.code);
      throw error;
    }
  };
}
