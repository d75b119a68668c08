import { AgentClient } from '../../client/agent-client';

/** `inject RUN TEXT`: a user message for the run's next model call. */
export async function injectCommand(workflowId: string, text: string, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    await client.getRun(workflowId).inject(text);
    console.log(`Queued for ${workflowId}: it joins the conversation before the next model call.`);
  } finally {
    if (!agents) await client.close();
  }
}
