// A user's own workflows that run agents as children (durable-agents/workflow), for tests only: never in the shipped bundle.
import { runAgent, type RunAgentOptions } from '../../src/workflow-api';

/** A user's workflow: an agent answers the ticket as its child, and the workflow returns the answer. */
export async function answerTicket(ticket: string, model: string): Promise<string> {
  const { output } = await runAgent({ config: { name: 'support', model, tools: ['echo'] }, task: `Answer this ticket: ${ticket}` });
  return output;
}

/** A user's workflow whose agent runs under the tenant's concurrency cap (one at a time). */
export async function answerTicketCapped(ticket: string, model: string, tenant: string): Promise<string> {
  const { output } = await runAgent({
    config: { name: 'support', model, tools: ['echo'] },
    task: `Answer this ticket: ${ticket}`,
    concurrency: { key: tenant, limit: 1 },
  });
  return output;
}

/** A user's workflow whose agent is one the workers define, named (`support`, `support@<version>`, or an unknown name). */
export async function answerTicketByName(ticket: string, agent: string): Promise<string> {
  const { output } = await runAgent({ agent, task: `Answer this ticket: ${ticket}` });
  return output;
}

/** A user's workflow that passes its options to `runAgent` as they are (to see what it refuses). */
export async function runAgentWithOptions(options: RunAgentOptions): Promise<string> {
  const { output } = await runAgent(options);
  return output;
}
