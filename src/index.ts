/**
 * `durable-agents`: what a client or a tool author needs. Start and follow runs, decide approvals,
 * define tools, validate agent configs. Nothing here runs in a workflow or needs a worker.
 *
 * @example
 * import { z } from 'zod';
 * import { AgentClient, defineTool } from 'durable-agents';
 *
 * export const lookupOrder = defineTool({
 *   name: 'lookup_order',
 *   description: 'Finds an order by id',
 *   parameters: z.object({ orderId: z.string() }),
 *   execute: async ({ orderId }) => ({ orderId, status: 'shipped' }),
 * });
 *
 * const agents = await AgentClient.connect();
 * const run = await agents.startRun({ config: { name: 'support', model: 'openai:gpt-4o-mini', tools: ['lookup_order'] }, task: 'Where is order 42?' });
 * console.log((await run.result()).output);
 *
 * @packageDocumentation
 */

// Tools
export { defineTool, RetryableToolError } from './tools/define-tool';
export type { Tool, ToolContext, ToolDefinition } from './tools/define-tool';

// Client
export { AgentClient } from './client/agent-client';
export { queryQueueInterceptor } from './connection/query-queue-interceptor';
export type { AgentOffer } from './protocol/agent-offers';
export { AgentNotFoundError, AgentOverrideError } from './protocol/agent-errors';
export type { AgentOverrides, AgentReference, AgentVersionRef } from './protocol/agent-reference';
export type { AgentName } from './client/agent-choice';
export type { AgentClientOptions, PendingApprovals, StartRunOptions } from './client/agent-client';
export { WorkerDeployments } from './client/worker-deployments';
export type { BuildHoldings, DeploymentBuild, DeploymentDescription } from './client/worker-deployments';
export type { ForkOptions } from './client/fork';
export type { ForkEditRequest } from './client/fork-edits';
export { evaluateRuns } from './client/evaluation/evaluate';
export type { EvaluationOptions, EvaluationReport, RunComparison, RunSummary, StepDivergence } from './client/evaluation/evaluate';
export { evaluateDataset } from './client/evaluation/evaluate-dataset';
export type { DatasetEvaluationOptions, DatasetEvaluationReport, ExampleResult, ExampleScore } from './client/evaluation/evaluate-dataset';
export { exportDataset } from './client/evaluation/dataset-export';
export { renderExperimentMarkdown, runExperiment } from './client/evaluation/experiment';
export type { ArmSummary, ExperimentArm, ExperimentExample, ExperimentOptions, ExperimentReport } from './client/evaluation/experiment';
export { readDataset, writeDataset } from './client/evaluation/dataset';
export type { Dataset, DatasetExample, DatasetExampleInput, DatasetHeader } from './client/evaluation/dataset';
export type { Scorer, ScorerSpec, ScoreInput, ScoreValue } from './client/evaluation/scorers';
export type { RecordedRunSelection } from './client/evaluation/recorded-run-ids';
export { RunHandle } from './client/run-handle';
export type { DecideOptions, DecisionReceipt, DecisionRetries } from './client/decision-delivery';
export { AgentSchedules } from './client/schedules/agent-schedules';
export { SCHEDULE_OVERLAP_POLICIES } from './client/schedules/schedule-options';
export type {
  AgentScheduleDescription,
  AgentScheduleSummary,
  ScheduleAction,
  ScheduleActionSummary,
  ScheduleCreateOptions,
  ScheduledRun,
  ScheduledRunAction,
  ScheduledThreadAction,
  ScheduleOverlap,
  ScheduleSpecOptions,
  ScheduleSpecView,
} from './client/schedules/schedule-options';
export { ThreadHandle } from './client/thread-handle';
export type { SendOptions, ThreadOptions } from './client/thread-handle';
export type { ThreadDeletion } from './client/thread-deletion';
export type { ThreadTranscript, TurnMessage, TurnTranscript } from './history/thread-transcript';
export { TurnHandle } from './client/turn-handle';
export type { ThreadFilter, ThreadSummary } from './client/thread-list';
export type {
  QueuedThreadMessage,
  ThreadClosedPolicy,
  ThreadMessageReceipt,
  ThreadPhase,
  ThreadPolicy,
  ThreadResult,
  ThreadSettings,
  ThreadStatus,
  TurnResult,
} from './protocol/thread-types';
export { resolveTemporalTarget } from './connection/temporal-target';
export type { TemporalTarget } from './connection/temporal-target';
export { TemporalUnreachableError } from './connection/temporal-unreachable';

// Config
export { agentConfigSchema, describeAgent, loopDetectionSchema, mcpServerSchema, parseAgentConfig, runTimeoutsSchema } from './config/agent-config';
export type { AgentConfig, AgentConfigInput, AgentDescription, McpServerConfig } from './config/agent-config';
export { loadAgentConfigFile, loadAgentDirectory } from './config/load-config';
export { toolPolicySchema } from './config/tool-policy-schema';
export { providerLimitsSchema } from './config/provider-limits-schema';
export { parseRunPriority, runPrioritySchema } from './config/run-priority-schema';
export type { RunPriority } from './config/run-priority-schema';
export { parseRunConcurrency, runConcurrencySchema } from './config/concurrency-schema';
export type { RunConcurrency } from './config/concurrency-schema';
export type { ProviderLimitWait } from './protocol/run-types';
export type { ToolPolicyRule } from './config/tool-policy-rules';
export type { ToolPolicyAction, ToolPolicyMatch } from './protocol/tool-policy-types';
export type { CallDecider, ToolDecision } from './protocol/call-deciders';

// Errors with stable codes
export { ApprovalRefusedError, DecisionUnverifiedError } from './protocol/approval-errors';
export {
  AgentConfigError,
  AgentRuntimeError,
  DeploymentError,
  EmptyMessageError,
  ErrorCode,
  InvalidMessageError,
  PayloadTooLargeError,
  SearchAttributesMissingError,
  ThreadError,
} from './protocol/errors';
export type { ErrorCodeValue } from './protocol/errors';
export { ScheduleError, ScheduleInvalidError } from './protocol/schedule-errors';

// Verified decisions: proofs of who decided, for agents with require_verified_decisions (docs/hitl.md)
export { issueDecisionProof } from './decisions/decision-proof';
export type { DecisionClaims, DecisionProofOptions } from './decisions/decision-proof';
export { readDecisionSigningKey } from './decisions/decision-keys';
export type { DecisionSigningKey } from './decisions/decision-keys';

// Lifecycle hooks, as runs record them (hooks themselves are defined on workers: durable-agents/worker)
export type { HookFailureReport, HookPoint } from './protocol/hook-types';

// What runs take, report and return
export type { AssistantMessage, JsonSchema, Message, ToolCall, ToolMessage, ToolSpec, Usage, UserMessage } from './protocol/messages';
export type { EventPage, RunEvent, RunEventType } from './protocol/run-events';
export type { LiveSnapshot, ModelTextSnapshot, ToolProgressSnapshot } from './protocol/live-snapshots';
export type {
  AgentRunInput,
  AgentRunResult,
  AgentRunWorkflow,
  ApprovalDecision,
  ApprovalOutcome,
  ApprovalRequest,
  HandoffRecord,
  PlanArtifact,
  ProgressNote,
  RunPhase,
  RunStatus,
  RunTimeouts,
  StopReason,
  ToolResult,
  ModelUsage,
  UsageSummary,
} from './protocol/run-types';
export type { ApprovalStatus, ToolResultMetadata, ToolResultStatus } from './protocol/tool-result-metadata';
