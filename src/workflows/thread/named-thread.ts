// A thread created by its agent's name: the definition resolved when it starts, and again before each turn, moving to a newer one between turns.
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  isCancellation,
  setHandler,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ResolvedAgent } from '../../protocol/agent-reference';
import { AGENTS_BUILD_PREFIX, agentVersionText } from '../../protocol/agent-reference';
import { ErrorCode } from '../../protocol/errors';
import { AgentVersionAttribute } from '../../protocol/search-attributes';
import { sendMessageUpdate, ThreadMessageDescription, validateThreadMessage } from '../../protocol/thread-messages';
import type { AgentThreadWorkflowInput, ResolvedThreadInput } from '../../protocol/thread-types';
import { resolveAgentDefinition } from '../loop/agent-resolution';
import { validOrRefuse } from '../loop/message-refusal';
import type { MessageDelivery } from './thread-handlers';

/** Messages that reach a named thread while its workers resolve its agent: they wait for the thread's own handler. */
export interface EarlyMessages {
  /** Hands the waiting messages (and later ones) to the thread's handler, once it is installed. */
  release(deliver: MessageDelivery): void;
}

/**
 * The input of a thread that names its agent and has no config yet (its first execution): the
 * definition the workers offer, resolved by a local activity. While it runs, `sendMessage` (the
 * message that created the thread, by update-with-start) is held by a stand-in handler: Temporal
 * refuses an update that finds no handler when the activation ends, and the thread's handlers need
 * its config. `pin` keeps the resolved version for the thread's whole life.
 * @throws ApplicationFailure (non-retryable) `AgentNotFound` / `AgentOverrideRefused`.
 */
export async function resolveThreadStart(input: AgentThreadWorkflowInput): Promise<{ input: ResolvedThreadInput; early: EarlyMessages }> {
  let deliver: MessageDelivery | undefined;
  setHandler(
    sendMessageUpdate,
    async (payload) => {
      await condition(() => deliver !== undefined);
      return deliver!(payload);
    },
    { description: ThreadMessageDescription.sendMessage, validator: (payload) => void validOrRefuse(validateThreadMessage(payload)) },
  );
  const early: EarlyMessages = { release: (handler) => void (deliver = handler) };
  const reference = input.agent;
  if (!reference)
    throw ApplicationFailure.nonRetryable('The thread input has neither a config nor an agent name (`agent`)', ErrorCode.agentConfigInvalid);
  const resolved = await resolveAgentDefinition({ reference });
  if (resolved.unchanged) throw new Error('resolveAgent answered "unchanged" to a thread that has no version yet');
  const pinned = input.pinVersion === true || reference.version !== undefined;
  const named = withDefinition(input, resolved);
  return { input: pinned ? { ...named, agent: { ...reference, version: resolved.version } } : named, early };
}

/**
 * Before a turn of a named thread that follows its agent (not pinned): the definition its workers
 * offer now. The same version answers `null` (one marker, the config stays out of the history); a
 * newer one answers the input the thread continues as new with (between turns: the turn runs on the
 * new definition from its start). Workers that no longer offer the agent, or refuse its overrides,
 * leave the thread on the version it has: an `agent-unavailable` event says why.
 */
export async function newerDefinition(
  input: ResolvedThreadInput,
  checked: { definitionBuild?: string },
  report: (reason: string) => void,
): Promise<ResolvedThreadInput | null> {
  const { agent, agentVersion } = input;
  if (!agent || !agentVersion || agent.version !== undefined) return null;
  // Workers of one Worker Deployment build offer the same definitions (they refuse to start otherwise):
  // a turn on the build that resolved last needs no new answer. Deterministic: Temporal records which
  // build ran each workflow task, and replay reads it from the history.
  const build = currentBuild();
  if (build !== undefined && build === checked.definitionBuild) return null;
  let resolved: ResolvedAgent;
  try {
    resolved = await resolveAgentDefinition({ reference: agent, current: agentVersion.version });
    checked.definitionBuild = build;
  } catch (error) {
    // A refusal, or a resolution that failed its tries: the thread goes on as it is (it never fails for this).
    if (!(error instanceof TemporalFailure) || isCancellation(error)) throw error;
    report(error instanceof ActivityFailure && error.cause ? error.cause.message : error.message);
    return null;
  }
  return resolved.unchanged ? null : withDefinition(input, resolved);
}

/**
 * Which definitions the worker running this workflow task offers, as far as the task says:
 * `deployment:build` on a Worker Deployment, the agents build id of an unversioned worker with
 * named agents (`AGENTS_BUILD_PREFIX`), else undefined (ask).
 */
export function currentBuild(): string | undefined {
  const info = workflowInfo();
  const version = info.currentDeploymentVersion;
  if (version?.deploymentName) return `${version.deploymentName}:${version.buildId}`;
  // Another build id (a bundle's, your own) says nothing of the definitions.
  const build = version?.buildId || info.currentBuildId;
  return build?.startsWith(AGENTS_BUILD_PREFIX) ? build : undefined;
}

/** The input with `resolved`'s config, handoff agents and version; `AgentVersion` shows it (when the thread started with the attribute). */
function withDefinition<Input extends AgentThreadWorkflowInput>(
  input: Input,
  resolved: ResolvedAgent & { unchanged: false },
): Input & ResolvedThreadInput {
  const { name, version, label, config, agents } = resolved;
  if (workflowInfo().typedSearchAttributes.get(AgentVersionAttribute) !== undefined) {
    upsertSearchAttributes([{ key: AgentVersionAttribute, value: agentVersionText({ name, version }) }]);
  }
  const next = { ...input, config, agentVersion: { name, version, label } };
  if (Object.keys(agents).length > 0) next.agents = agents;
  else delete next.agents;
  return next;
}
