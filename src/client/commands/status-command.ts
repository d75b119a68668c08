import { AgentClient } from '../agent-client';

/** `status RUN`: the run's live status from the `status` query. */
export async function statusCommand(workflowId: string, options: { json?: boolean }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const run = client.getRun(workflowId);
    const [status, description] = await Promise.all([run.status(), run.workflow.describe()]);
    if (options.json) {
      console.log(JSON.stringify({ workflowId, execution: description.status.name, ...status }));
      return;
    }
    console.log(`Run ${workflowId}: ${description.status.name}, phase ${status.phase}, step ${status.step} of ${status.maxSteps}`);
    console.log(`Tools: ${status.activeTools.join(', ') || 'none'}${status.runningTools.length ? ` (running: ${status.runningTools.join(', ')})` : ''}`);
    console.log(`Usage: ${status.usage.inputTokens} input / ${status.usage.outputTokens} output tokens`);
    if (status.stopReason) console.log(`Stopped: ${status.stopReason}`);
    if (client.runUrl(workflowId)) console.log(`Web UI: ${client.runUrl(workflowId)}`);
  } finally {
    if (!agents) await client.close();
  }
}
