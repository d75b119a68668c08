// The input an agentRun execution ran with, as its history holds it: a named run's resolved definition merged in from its marker.
import type { ResolvedAgent } from '../protocol/agent-reference';
import type { ResolvedRunInput, AgentRunWorkflowInput } from '../protocol/run-types';
import { decode, type HistoryEvent } from './history-events';

/** The local-activity type whose marker holds a named run's definition. */
const RESOLVE_AGENT = 'resolveAgent';

/**
 * The input of the execution whose history `events` is, with its config: inline, or for a run that
 * named its agent (`agent`, no config), the definition its `resolveAgent` local activity recorded
 * (config, handoff agents and version). Null when the history is not an agent run's, or a named
 * run's that never resolved its agent (it failed first).
 * @example
 * const input = startedRunInput(history.events);
 * console.log(input?.config.name, input?.agentVersion?.version);
 */
export function startedRunInput(events: readonly HistoryEvent[]): ResolvedRunInput | null {
  const input = decode<AgentRunWorkflowInput>(events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
  if (!input) return null;
  if (input.config) return input as ResolvedRunInput;
  if (!input.agent) return null;
  const resolved = resolvedAgentOf(events);
  if (!resolved || resolved.unchanged) return null;
  const { config, agents, name, version, label } = resolved;
  return { ...input, config, ...(Object.keys(agents).length > 0 ? { agents } : {}), agentVersion: { name, version, label } };
}

/** The first `resolveAgent` result recorded in `events` (a local activity's marker), or null. */
export function resolvedAgentOf(events: readonly HistoryEvent[]): ResolvedAgent | null {
  for (const event of events) {
    const details = event.markerRecordedEventAttributes?.details;
    if (!details) continue;
    const meta = decode<{ activity_type?: string }>(details['data']?.payloads?.[0]);
    if (meta?.activity_type !== RESOLVE_AGENT) continue;
    return decode<ResolvedAgent>(details['result']?.payloads?.[0]);
  }
  return null;
}
