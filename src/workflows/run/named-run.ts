// A run started by its agent's name: the definition resolved on the workers before anything else, and shown in the AgentVersion search attribute.
import { ApplicationFailure, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { agentVersionText } from '../../protocol/agent-reference';
import { ErrorCode } from '../../protocol/errors';
import type { AgentRunWorkflowInput, ResolvedRunInput } from '../../protocol/run-types';
import { AgentVersionAttribute } from '../../protocol/search-attributes';
import { resolveAgentDefinition } from '../loop/agent-resolution';
import { answerEventsWhileStarting } from './starting-events';

/**
 * The run's input with its config: given inline, carried by a continuation, or, for a run that
 * names its agent, the definition the workers offer (its overrides applied, the agents it hands
 * off to), resolved once: the first execution records it, and continuations carry it. A named
 * sub-agent's `cost_limit` is at most what its parent had left (`costCeilingUsd`).
 * @throws ApplicationFailure (non-retryable) `AgentNotFound` / `AgentOverrideRefused`; `AgentConfigError` for an input with neither.
 */
export async function resolveRunInput(input: AgentRunWorkflowInput): Promise<ResolvedRunInput> {
  if (input.config) return input as ResolvedRunInput;
  if (!input.agent) {
    throw ApplicationFailure.nonRetryable('The run input has neither a config nor an agent name (`agent`)', ErrorCode.agentConfigInvalid);
  }
  // Resolving waits for the workers: a client that follows the run from its start meanwhile reads an empty page, not an error.
  answerEventsWhileStarting();
  const resolved = await resolveAgentDefinition({ reference: input.agent });
  if (resolved.unchanged) throw new Error('resolveAgent answered "unchanged" to a run that has no version yet');
  const { name, version, label, config, agents } = resolved;
  // A client sets the attribute to the name at start (a namespace without it refuses the start): now
  // the version. A run started without it (another client) may be in a namespace without it: left alone.
  if (workflowInfo().typedSearchAttributes.get(AgentVersionAttribute) !== undefined) {
    upsertSearchAttributes([{ key: AgentVersionAttribute, value: agentVersionText({ name, version }) }]);
  }
  // A sub-agent spends within what its parent has left: the definition's own limit, if lower, stands.
  const ceiling = input.costCeilingUsd;
  const capped = ceiling === undefined ? config : { ...config, cost_limit: Math.min(config.cost_limit ?? ceiling, ceiling) };
  return { ...input, config: capped, ...(Object.keys(agents).length > 0 ? { agents } : {}), agentVersion: { name, version, label } };
}
