/**
 * `durable-agents/workflow`: for your own workflows (sandbox-safe, deterministic) and for any
 * Temporal client in another language or tool — run an agent as a child workflow, and the wire
 * names and payload types of every signal, query and update of an agent run.
 *
 * @example
 * import { runAgent } from 'durable-agents/workflow';
 *
 * export async function triage(ticket: string): Promise<string> {
 *   const { output } = await runAgent({ config: { name: 'triage', model: 'openai:gpt-4o-mini', tools: ['lookup_order'] }, task: ticket });
 *   return output;
 * }
 *
 * @packageDocumentation
 */

export { runAgent, startAgent } from './run-agent';
export type { RunAgentOptions } from './run-agent';
export type { AgentName, AgentOverrides, AgentReference } from '../protocol/agent-reference';

// Signals, queries and updates of an agent run (the same definitions the runtime uses).
export {
  approvalSignal,
  decideApprovalUpdate,
  eventsQuery,
  injectMessageSignal,
  injectMessageUpdate,
  skillsChangedSignal,
  statusQuery,
} from '../protocol/run-messages';
export type { InjectedMessage } from '../protocol/run-messages';
// ... and of a thread (a durable multi-turn conversation: the `agentThread` workflow).
export {
  awaitTurnUpdate,
  closeThreadSignal,
  closeThreadUpdate,
  sendMessageSignal,
  sendMessageUpdate,
  threadQuery,
} from '../protocol/thread-messages';
export type {
  AgentThreadInput,
  AwaitTurnReply,
  ThreadClosedPolicy,
  ThreadMessage,
  ThreadMessageReceipt,
  ThreadPolicy,
  ThreadResult,
  ThreadSettings,
  ThreadStatus,
  TurnResult,
} from '../protocol/thread-types';
export { DEFAULT_TASK_QUEUE, WireName } from '../protocol/wire-names';
export { checkVersionSignal, DEPLOYMENT_VERSION_ATTRIBUTE } from '../protocol/deployment-versions';
export { limiterStatusQuery, limiterWorkflowId, limitKey, ProviderLimitWireName } from '../protocol/provider-limits';
export { concurrencySlotsWorkflowId, slotsStatusQuery, ConcurrencyWireName, agentCapKey, startCapKey } from '../protocol/concurrency-slots';
export type { ConcurrencyCap, SlotsStatus } from '../protocol/concurrency-slots';
export type { LimiterStatus } from '../protocol/provider-limits';
export {
  AgentCostUsdAttribute,
  AgentEvaluationAttribute,
  AgentForkOfAttribute,
  AgentLastActivityAttribute,
  AgentVersionAttribute,
  AgentNameAttribute,
  AgentResourceAttribute,
  AgentSkillSourcesAttribute,
  AgentStatusAttribute,
} from '../protocol/search-attributes';

// Payload types
export type { AgentConfig, AgentConfigInput, McpServerConfig } from '../config/agent-config';
export type { EventPage, RunEvent, RunEventType } from '../protocol/run-events';
export type { Message, ToolCall, Usage } from '../protocol/messages';
export type { SkillBatch, SkillChange, SkillChangeKind, SkillFileError, SkillInfo } from '../protocol/skill-types';
export type {
  AgentRunInput,
  AgentRunResult,
  AgentRunWorkflow,
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalRequest,
  RunStatus,
  RunTimeouts,
  StopReason,
  ToolResult,
} from '../protocol/run-types';
