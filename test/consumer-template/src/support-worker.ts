import { Worker, type NativeConnection } from '@temporalio/worker';
import { AgentPlugin } from 'durable-agents/worker';
import * as activities from './activities.js';
import { supportTools } from './tools.js';

export interface SupportWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** The compiled `workflows.js` of this project. */
  workflowsPath: string;
}

/**
 * An ordinary Temporal worker with this project's workflows and activities; the agent plugin adds
 * the agent-run workflow, its activities and the tools.
 */
export function createSupportWorker(options: SupportWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: options.workflowsPath,
    activities: { ...activities },
    plugins: [new AgentPlugin({ tools: supportTools })],
  });
}
