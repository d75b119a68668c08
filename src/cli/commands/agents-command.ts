import { AgentClient } from '../../client/agent-client';
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
