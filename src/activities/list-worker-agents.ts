import type { AgentRegistry } from '../agents/agent-registry';
import type { AgentOffer } from '../protocol/agent-offers';

export interface WorkerAgentsDependencies {
  /** The agents this worker offers (AgentPlugin's `agents` / `agentsFolder`); absent: none. */
  agents?: AgentRegistry;
}

/** The agents this worker offers, by name, with their versions: what `durable-agents agents list` shows. */
export function createListWorkerAgents(dependencies: WorkerAgentsDependencies) {
  return async function listWorkerAgents(): Promise<AgentOffer[]> {
    return dependencies.agents?.offers() ?? [];
  };
}
