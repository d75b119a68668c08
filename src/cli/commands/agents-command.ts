import { agentVersionLabel } from '../../protocol/agent-reference';
import { AgentClient } from '../../client/agent-client';
import { liveAgentVersions, type LiveAgentVersion } from '../../client/agent-versions';
import { AgentNotFoundError, offeredVersions } from '../../protocol/agent-errors';
import type { AgentOffer } from '../../protocol/agent-offers';

/** `agents list`: the agents the task queue's workers offer, by name, with version, label, model and tools. */
export async function agentsListCommand(options: { json?: boolean; taskQueue?: string }): Promise<void> {
  const agents = await AgentClient.connect(undefined, options.taskQueue ? { taskQueue: options.taskQueue } : {});
  try {
    const offers = await agents.listAgents();
    console.log(options.json ? JSON.stringify(offers) : formatAgentOffers(offers, agents.taskQueue));
  } finally {
    await agents.close();
  }
}

/** The offers as a table: one line per agent. */
export function formatAgentOffers(offers: readonly AgentOffer[], taskQueue: string): string {
  if (offers.length === 0)
    return `The workers on task queue '${taskQueue}' offer no named agent (give them some: worker --agents <folder>, or AgentPlugin({ agents }))`;
  const lines = [`Agents the workers on task queue '${taskQueue}' offer:`];
  for (const offer of offers) {
    const label = offer.label ? ` (${offer.label})` : '';
    const extras = [
      offer.tools.length > 0 ? `tools ${offer.tools.join(', ')}` : 'no tools',
      ...(offer.handoffs.length > 0 ? [`hands off to ${offer.handoffs.join(', ')}`] : []),
      ...(offer.overridable.length > 0 ? [`callers may set ${offer.overridable.join(', ')}`] : []),
    ];
    lines.push(`  ${offer.name}@${offer.version}${label}  ${offer.model}  ${extras.join('; ')}`);
  }
  return lines.join('\n');
}

/**
 * `agents show <name>`: what the workers offer of one agent (version, label, model, tools, handoffs,
 * overrides) and the versions its open runs and threads answer with (their `AgentVersion`).
 * @throws AgentNotFoundError listing the agents the workers offer.
 */
export async function agentsShowCommand(name: string, options: { json?: boolean; taskQueue?: string }): Promise<void> {
  const agents = await AgentClient.connect(undefined, options.taskQueue ? { taskQueue: options.taskQueue } : {});
  try {
    const offers = await agents.listAgents();
    const offer = offers.find((each) => each.name === name);
    if (!offer) throw new AgentNotFoundError(name, offeredVersions(offers));
    const live = await liveAgentVersions(agents.temporal, name);
    console.log(options.json ? JSON.stringify({ ...offer, live }) : formatAgentShow(offer, live));
  } finally {
    await agents.close();
  }
}

/** One agent in detail, then its live versions. */
export function formatAgentShow(offer: AgentOffer, live: readonly LiveAgentVersion[]): string {
  const lines = [
    `Agent ${agentVersionLabel(offer)}`,
    `  model: ${offer.model}`,
    `  tools: ${offer.tools.join(', ') || 'none'}`,
    `  hands off to: ${offer.handoffs.join(', ') || 'none'}`,
    `  callers may override: ${offer.overridable.join(', ') || 'nothing'}`,
    live.length === 0 ? '  open runs and threads: none' : '  open runs and threads by version:',
  ];
  for (const version of live) {
    const current = version.version === offer.version ? ' (offered now)' : '';
    lines.push(`    ${offer.name}@${version.version}${current}: ${version.runs} run(s), ${version.threads} thread(s)`);
  }
  return lines.join('\n');
}
