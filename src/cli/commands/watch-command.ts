import { AgentClient } from '../../client/agent-client';
import { followRun, printResult } from './run-command';

/** `watch RUN`: prints a running run's events live and exits with its result. */
export async function watchCommand(workflowId: string, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const run = client.getRun(workflowId);
    printResult(await followRun(run, false), client.runUrl(workflowId));
  } finally {
    if (!agents) await client.close();
  }
}
