// Errors of named agents that callers see: an agent the workers do not offer, an override its definition refuses. Sandbox-safe.
import { agentVersionLabel } from './agent-reference';
import type { AgentOffer } from './agent-offers';
import { AgentRuntimeError, ErrorCode } from './errors';

/**
 * A named agent the task queue's workers do not offer, or not at the version asked for (code
 * `AgentNotFound`). `offered` lists what they offer (`name@version`), so the caller can correct
 * the name. Thrown by the client before anything starts; a run whose workers lost the agent since
 * fails with an `ApplicationFailure` of this code.
 * @example
 * import { AgentNotFoundError } from 'durable-agents';
 *
 * try {
 *   await agents.startRun({ agent: 'suport', task: 'Hi' });
 * } catch (error) {
 *   if (error instanceof AgentNotFoundError) console.error(`Try one of: ${error.offered.join(', ')}`);
 * }
 */
export class AgentNotFoundError extends AgentRuntimeError {
  constructor(
    readonly agent: string,
    readonly offered: string[],
    message: string = agentNotFoundMessage(agent, offered),
  ) {
    super(ErrorCode.agentNotFound, message);
  }
}

/**
 * An override of a named agent (`overrides: { model }`) its definition does not let callers make
 * (code `AgentOverrideRefused`), or a value that does not validate; `problems` names each field.
 * @example
 * try {
 *   await agents.startRun({ agent: 'support', overrides: { temperature: 0 }, task: 'Hi' });
 * } catch (error) {
 *   if (error instanceof AgentOverrideError) console.error(error.problems); // ["temperature: agent 'support' does not let callers override it (it allows: model)"]
 * }
 */
export class AgentOverrideError extends AgentRuntimeError {
  constructor(
    readonly agent: string,
    readonly problems: string[],
  ) {
    super(ErrorCode.agentOverrideRefused, `Overrides of agent '${agent}' refused:\n  ${problems.join('\n  ')}`);
  }
}

/** The message of an unknown agent: what was asked for and what the workers offer. */
export function agentNotFoundMessage(agent: string, offered: readonly string[]): string {
  return offered.length === 0
    ? `No agent '${agent}': the task queue's workers define no agents (give them some: docs/agents.md)`
    : `No agent '${agent}' on the task queue's workers; they offer: ${offered.join(', ')}`;
}

/** The `name@version` (and label) of each offer, as errors list them. */
export function offeredVersions(offers: readonly AgentOffer[]): string[] {
  return offers.map(agentVersionLabel);
}
