/**
 * Stable wire names of the workflow's messages, defined once for the workflow, the client, the
 * tests and anyone using another Temporal client. Changing one breaks running workflows.
 */
export const WireName = {
  agentRunWorkflow: 'agentRun',
  statusQuery: 'status',
  eventsQuery: 'events',
  conversationQuery: 'conversation',
  approvalSignal: 'approval',
  decideApprovalUpdate: 'decideApproval',
  injectMessageSignal: 'injectMessage',
  injectMessageUpdate: 'injectMessageChecked',
  skillsChangedSignal: 'skillsChanged',
} as const;

/** The default task queue of workers and clients. */
export const DEFAULT_TASK_QUEUE = 'agent-runs';

/** The built-in tool that reads offloaded tool results (added to a run once something is offloaded). */
export const READ_ARTIFACT_TOOL = 'read_artifact';

/** Sub-agent tools: carried out by the workflow as child workflows. */
export const SPAWN_SELF_TOOL = 'spawn_self';
export const SPAWN_PARALLEL_TOOL = 'spawn_subagents';
