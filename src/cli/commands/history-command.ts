import { AgentClient } from '../../client/agent-client';
import { buildTranscript, renderTranscript } from '../../history/history-view';

/** `history RUN`: a readable transcript built from the run's Temporal history. */
export async function historyCommand(workflowId: string, options: { json?: boolean; runId?: string }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const transcript = await buildTranscript(client.temporal, workflowId, options.runId);
    console.log(options.json ? JSON.stringify(transcript, null, 2) : renderTranscript(transcript));
  } finally {
    if (!agents) await client.close();
  }
}
