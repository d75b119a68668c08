// A named agent's versions as Temporal knows them: which are live (AgentVersion of open runs and threads), and the definition a recorded version ran with.
import type { Client } from '@temporalio/client';
import type { AgentConfig } from '../config/agent-config';
import { chainNewestFirst } from '../history/history-view';
import { startedRunInput } from '../history/started-input';
import { AgentNotFoundError, offeredVersions } from '../protocol/agent-errors';
import type { AgentOffer } from '../protocol/agent-offers';
import { agentVersionText, parseAgentText, type AgentVersionRef } from '../protocol/agent-reference';
import { AgentConfigError } from '../protocol/errors';
import { AgentNameAttribute, AgentVersionAttribute } from '../protocol/search-attributes';
import { visibilityString } from './visibility-quote';

/** Open executions per version of an agent: what a rollback or a retirement would touch. */
export interface LiveAgentVersion {
  version: string;
  runs: number;
  threads: number;
}

/** A version's definition, as a run or thread that answered with it recorded it. */
export interface RecordedAgentDefinition extends AgentVersionRef {
  config: AgentConfig;
  /** The configs of the agents it hands off to, by name. */
  agents: Record<string, AgentConfig>;
  /** The execution it was read from. */
  recordedBy: { workflowId: string; runId: string };
}

/** How many open executions `liveAgentVersions` reads at most (it counts them one by one). */
const LIVE_LIMIT = 2_000;
/** How many executions that ran a version are read before giving up on finding its definition. */
const RECORDED_TRIES = 5;

/**
 * The versions of agent `name` that open runs and threads answer with now (their `AgentVersion`),
 * newest first by count. Reads at most 2,000 executions (a visibility list).
 * @example
 * await liveAgentVersions(client, 'support'); // [{ version: '3f2a9c0d1b7e', runs: 2, threads: 40 }]
 */
export async function liveAgentVersions(client: Client, name: string): Promise<LiveAgentVersion[]> {
  const counts = new Map<string, LiveAgentVersion>();
  const query = `${AgentNameAttribute.name} = ${visibilityString(name)} AND ${AgentVersionAttribute.name} IS NOT NULL AND ExecutionStatus = 'Running'`;
  let seen = 0;
  for await (const execution of client.workflow.list({ query })) {
    if (++seen > LIVE_LIMIT) break;
    const text = execution.typedSearchAttributes.get(AgentVersionAttribute);
    const version = text?.startsWith(`${name}@`) ? text.slice(name.length + 1) : null;
    if (!version) continue;
    const entry = counts.get(version) ?? { version, runs: 0, threads: 0 };
    if (execution.type === 'agentThread') entry.threads++;
    else entry.runs++;
    counts.set(version, entry);
  }
  return [...counts.values()].sort((a, b) => b.runs + b.threads - (a.runs + a.threads));
}

/**
 * The definition of `text` (`support@3f2a9c0d1b7e`, or `support@release-42` for a version the
 * workers offer now) as a run or thread that answered with it recorded it: so a version no worker
 * offers any more can still be replayed (`eval --agent`) or forked to, by name.
 * @throws AgentConfigError for text that is not `name@version`; AgentNotFoundError when no
 * execution recorded that version (`offers` list what the workers offer).
 * @example
 * const v1 = await recordedAgentDefinition(client, 'support@3f2a9c0d1b7e', await agents.listAgents());
 * await evaluateRuns(agents, { query: "AgentName = 'support'", config: v1.config, agents: v1.agents });
 */
export async function recordedAgentDefinition(client: Client, text: string, offers: readonly AgentOffer[]): Promise<RecordedAgentDefinition> {
  const reference = parseAgentText(text);
  if (!reference) {
    const problem = `agent: '${text}' is not name@version (a version hash, or a label the workers offer)`;
    throw new AgentConfigError(problem, [problem]);
  }
  const offer = offers.find((each) => each.name === reference.name && (reference.version === undefined || reference.version === each.label));
  const version = offer && reference.version !== undefined ? offer.version : (reference.version ?? offer?.version);
  const wanted = version ? agentVersionText({ name: reference.name, version }) : text;
  if (version) {
    let tries = 0;
    for await (const execution of client.workflow.list({ query: `${AgentVersionAttribute.name} = ${visibilityString(wanted)}` })) {
      if (++tries > RECORDED_TRIES) break;
      const found = await definitionIn(client, execution.workflowId, execution.runId, version);
      if (found) return found;
    }
  }
  throw new AgentNotFoundError(
    wanted,
    offeredVersions(offers),
    `No run or thread recorded agent ${wanted} (its AgentVersion search attribute), so its definition is unknown here; the workers offer: ${offeredVersions(offers).join(', ') || 'none'}`,
  );
}

/** The definition of `version` in the execution chain ending at `runId`, newest execution first. */
async function definitionIn(client: Client, workflowId: string, runId: string, version: string): Promise<RecordedAgentDefinition | null> {
  for await (const execution of chainNewestFirst(client, workflowId, runId)) {
    const input = startedRunInput(execution.events);
    if (input?.agentVersion?.version !== version) continue;
    return { ...input.agentVersion, config: input.config, agents: input.agents ?? {}, recordedBy: { workflowId, runId: execution.runId } };
  }
  return null;
}
