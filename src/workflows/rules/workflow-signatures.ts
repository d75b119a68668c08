// The signatures of the agent workflows, for starting or continuing one by its wire name from inside another without importing its module (which would tie the two into an import circle).
import type { AgentRunResult, AgentRunWorkflowInput } from '../../protocol/run-types';
import type { AgentThreadWorkflowInput, ThreadResult } from '../../protocol/thread-types';

/** `agentRun` (run/agent-run.ts). */
export type AgentRunWorkflow = (input: AgentRunWorkflowInput) => Promise<AgentRunResult>;

/** `agentThread` (thread/agent-thread.ts). */
export type AgentThreadWorkflow = (input: AgentThreadWorkflowInput) => Promise<ThreadResult>;
