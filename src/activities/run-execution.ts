import { Context } from '@temporalio/activity';
import type { RunExecution } from './conversation-source';

/** The agent run that scheduled the current activity. */
export function currentRunExecution(): RunExecution {
  const execution = Context.current().info.workflowExecution;
  if (!execution) throw new Error('This activity must be scheduled by an agent run workflow');
  return { workflowId: execution.workflowId, runId: execution.runId };
}
