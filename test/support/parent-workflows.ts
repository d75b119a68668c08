// A user's own workflows that run agents as children (durable-agents/workflow), for tests only: never in the shipped bundle.
import { runAgent } from '../../src/workflow-api';

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
