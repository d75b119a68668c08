// Error types with stable codes. Across Temporal they travel as `ApplicationFailure` with `type`
// set to the code; tests assert on codes, never on message text.

/**
 * Every stable error code of the runtime. A code is the `name` and `code` of the error thrown in
 * this process, and the `type` of the `ApplicationFailure` when it crosses Temporal (a failed
 * run's cause, a tool result's `errorCode`). Codes never change; compare against them, not against
 * messages. docs/errors.md says which are retried.
 * @example
 * import { WorkflowFailedError } from '@temporalio/client';
 * import { ApplicationFailure } from '@temporalio/common';
 * import { ErrorCode } from 'durable-agents';
 *
 * try {
 *   await run.result();
 * } catch (error) {
 *   const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
 *   if (cause instanceof ApplicationFailure && cause.type === ErrorCode.modelAuthFailed) {
 *     console.error('Check the provider API key on the workers');
 *   }
 * }
 */
export const ErrorCode = {
  agentConfigInvalid: 'AgentConfigError',
  duplicateTool: 'DuplicateToolError',
  toolNotFound: 'ToolNotFoundError',
  toolArgumentsInvalid: 'ToolArgumentsInvalid',
  toolFailed: 'ToolFailed',
  /** Thrown by a tool for a failure worth retrying (`RetryableToolError`); after its tries, `ToolFailed`. */
  retryableTool: 'RetryableToolError',
  /** A call a rule of `tool_policies` or a before-tool hook denied: the tool did not run. */
  toolDenied: 'ToolDenied',
  /** A call of the step loop detection stopped the run at: the tool did not run (docs/loop-detection.md). */
  loopStopped: 'LoopStopped',
  toolRejected: 'ToolRejected',
  approvalTimedOut: 'ApprovalTimedOut',
  modelNotFound: 'ModelNotFoundError',
  modelRateLimited: 'ModelRateLimited',
  modelServerError: 'ModelServerError',
  modelTimeout: 'ModelTimeout',
  modelAuthFailed: 'ModelAuthFailed',
  modelBadRequest: 'ModelBadRequest',
  /** A model step whose retryable failures (rate limit, 5xx, timeout) used up `max_retries` tries; its cause is the last failure. */
  modelRetriesExhausted: 'ModelRetriesExhausted',
  /** A model step that failed for good with a failure of no known code. */
  modelStepFailed: 'ModelStepFailed',
  contextLengthExceeded: 'ContextLengthExceeded',
  missingApiKey: 'MissingApiKey',
  scriptedModelMismatch: 'ScriptedModelMismatch',
  conversationUnavailable: 'ConversationUnavailable',
  approvalRefused: 'ApprovalRefused',
  /** A decision an agent with `require_verified_decisions` refused: no proof, or one the workers could not verify (the reason says which). */
  decisionUnverified: 'DecisionUnverified',
  emptyMessage: 'EmptyMessage',
  invalidMessage: 'InvalidMessage',
  subagentRefused: 'SubagentRefused',
  /** A handoff tool called where it cannot hand off (by the planner): an error result the model sees; nothing is handed over. */
  handoffRefused: 'HandoffRefused',
  toolsModuleInvalid: 'ToolsModuleError',
  payloadTooLarge: 'PayloadTooLarge',
  searchAttributesMissing: 'SearchAttributesMissing',
  runNotFound: 'RunNotFound',
  forkRefused: 'ForkRefused',
  /** An edit given to a fork (`--edit-tool-result`, `--edit-message`) that does not fit the origin's history: a step, call or role that is not there. */
  forkEditInvalid: 'ForkEditInvalid',
  toolCallNotRecorded: 'ToolCallNotRecorded',
  workersUnavailable: 'WorkersUnavailable',
  evaluationRefused: 'EvaluationRefused',
  datasetInvalid: 'DatasetInvalid',
  scorerInvalid: 'ScorerInvalid',
  threadNotFound: 'ThreadNotFound',
  threadBusy: 'ThreadBusy',
  threadClosed: 'ThreadClosed',
  threadConfigMismatch: 'ThreadConfigMismatch',
  turnResultUnavailable: 'TurnResultUnavailable',
  invalidMemoryInput: 'InvalidMemoryInput',
  memoryUnavailable: 'MemoryUnavailable',
  artifactStoreUnavailable: 'ArtifactStoreUnavailable',
  hookFailed: 'HookFailed',
  hookInvalid: 'HookDefinitionError',
  /** A worker deployment name or build id given without the other, or not usable as one (docs/deployment.md). */
  deploymentOptionsInvalid: 'DeploymentOptionsInvalid',
  /** A worker deployment, or a build of one, the server does not know (no worker of it has polled yet). */
  deploymentNotFound: 'DeploymentNotFound',
  /** A deployment whose new current or ramping build the server has not yet passed to its task queues, so a wake-up would not move anything yet. */
  deploymentRoutingPending: 'DeploymentRoutingPending',
  /** An agent definition a worker was given (defineAgent, an agents folder) that does not validate, or names a tool, provider or handoff target the worker lacks (docs/agents.md). */
  agentDefinitionInvalid: 'AgentDefinitionInvalid',
  /** A named agent (`startRun({ agent })`, a thread, `runAgent`, a sub-agent) that the task queue's workers do not define, or not at the version asked for; the error lists what they offer (docs/agents.md). */
  agentNotFound: 'AgentNotFound',
  /** An override of a named agent's config that its definition does not allow (its `overridable`), or a value that does not validate. */
  agentOverrideRefused: 'AgentOverrideRefused',
  /** A schedule's options refused before anything is sent (`field` names which: `spec.cron`, `overlap`, `catchupWindow`, `action.task`, ...); no schedule is created or changed (docs/schedules.md). */
  scheduleInvalid: 'ScheduleInvalid',
  /** A schedule id the namespace has no schedule for (never created, or deleted). */
  scheduleNotFound: 'ScheduleNotFound',
  /** A schedule created with the id of one that exists: the existing schedule is left as it was. */
  scheduleExists: 'ScheduleExists',
} as const;

/** One of the `ErrorCode` values. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Base class: every error of this runtime carries a stable code. Tell user errors (a bad config,
 * a refused decision) from system errors with `instanceof AgentRuntimeError`, then switch on `code`
 * (across module copies or realms, where `instanceof` fails, check `code` alone).
 * @example
 * import { AgentRuntimeError, ErrorCode } from 'durable-agents';
 *
 * try {
 *   await run.approve(approvalId);
 * } catch (error) {
 *   if (error instanceof AgentRuntimeError && error.code === ErrorCode.approvalRefused) console.warn(error.message);
 *   else throw error;
 * }
 */
export class AgentRuntimeError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
  ) {
    super(message);
    this.name = code;
  }
}

/**
 * An agent config, or a run's start input (a blank `task`), that failed validation (code
 * `AgentConfigError`); `problems` has one line per invalid field, `<field path>: <what is wrong>`.
 * Thrown before anything starts; inside a workflow (`runAgent`) it fails that workflow as a
 * non-retryable `ApplicationFailure` with this code.
 * @example
 * import { AgentConfigError, parseAgentConfig } from 'durable-agents';
 *
 * try {
 *   parseAgentConfig({ name: 'helper', temperature: 3 });
 * } catch (error) {
 *   if (error instanceof AgentConfigError) console.error(error.problems); // ['temperature: ...']
 * }
 */
export class AgentConfigError extends AgentRuntimeError {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(ErrorCode.agentConfigInvalid, message);
  }
}

export class DuplicateToolError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.duplicateTool, message);
  }
}

/**
 * A message with no text (code `EmptyMessage`): an injected message (`RunHandle.inject` and
 * `injectAndConfirm`) or a thread message (`ThreadHandle.send`), refused before anything is sent.
 * @example
 * import { EmptyMessageError } from 'durable-agents';
 *
 * try {
 *   await run.inject(userInput);
 * } catch (error) {
 *   if (error instanceof EmptyMessageError) console.warn('Type a message first');
 *   else throw error;
 * }
 */
export class EmptyMessageError extends AgentRuntimeError {
  constructor(kind: 'injected' | 'thread' = 'injected') {
    super(ErrorCode.emptyMessage, `text: ${kind === 'thread' ? 'a thread message' : 'an injected message'} must not be empty`);
  }
}

/**
 * A hook or an instructions provider given to a worker that cannot be used (code
 * `HookDefinitionError`): no name, an unknown point, no function, or a name used twice. Thrown when
 * the worker (or `defineHook`) is built, before anything runs.
 * @example
 * import { defineHook, HookDefinitionError } from 'durable-agents/worker';
 *
 * try {
 *   defineHook({ name: '', point: 'before-tool', run: () => undefined });
 * } catch (error) {
 *   if (error instanceof HookDefinitionError) console.error(error.message);
 * }
 */
export class HookDefinitionError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.hookInvalid, message);
  }
}

/** A `--tools` module that cannot be loaded, or does not export tools. */
export class ToolsModuleError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.toolsModuleInvalid, message);
  }
}

/**
 * The namespace lacks this runtime's search attributes: register them once with
 * `npx durable-agents setup` (or `registerSearchAttributes`). Nothing was started.
 * @example
 * try { await agents.startRun({ config, task }); }
 * catch (error) { if (error instanceof SearchAttributesMissingError) console.error(error.message); }
 */
export class SearchAttributesMissingError extends AgentRuntimeError {
  constructor(namespace: string, detail: string) {
    super(
      ErrorCode.searchAttributesMissing,
      `The namespace '${namespace}' has no search attributes for agent runs (${detail}). Register them once: ` +
        '`npx durable-agents setup` (or registerSearchAttributes() from durable-agents/worker).',
    );
  }
}

/**
 * A signal or update payload the run refused (a field of the wrong type or too long); nothing
 * changed in the run.
 * @example
 * try { await run.decide({ approvalId: 'step-1.call-1', decision: 'approve', decidedBy: 'x'.repeat(500) }); }
 * catch (error) { if (error instanceof InvalidMessageError) console.error(error.message); }
 */
export class InvalidMessageError extends AgentRuntimeError {
  constructor(reason: string) {
    super(ErrorCode.invalidMessage, reason);
  }
}

/**
 * A value too large to send to Temporal (code `PayloadTooLarge`), refused by the client before
 * anything is sent: `field` names it, `limitBytes` is what it may hold (as UTF-8 JSON).
 * @example
 * try { await agents.startRun({ config, task: hugeDocument }); }
 * catch (error) { if (error instanceof PayloadTooLargeError) console.error(error.field, error.limitBytes); }
 */
export class PayloadTooLargeError extends AgentRuntimeError {
  constructor(
    readonly field: string,
    readonly limitBytes: number,
    message: string,
  ) {
    super(ErrorCode.payloadTooLarge, message);
  }
}

/**
 * A thread refused a message, or the thread cannot be reached (code says which): `ThreadBusy` (a
 * turn runs and the message's policy is `reject`), `ThreadClosed` (send to a new thread id),
 * `ThreadConfigMismatch` (the thread was created with another config), `ThreadNotFound` (no thread
 * with this id, and no config to create one), `TurnResultUnavailable` (a turn older than the
 * results the thread keeps: read it with `history`). Nothing changed in the thread.
 * @example
 * import { ErrorCode, ThreadError } from 'durable-agents';
 *
 * try {
 *   await agents.thread('support:customer-42').send('Hello again', { policy: 'reject' });
 * } catch (error) {
 *   if (error instanceof ThreadError && error.code === ErrorCode.threadBusy) console.warn('Still answering: try later');
 *   else throw error;
 * }
 */
export class ThreadError extends AgentRuntimeError {
  constructor(
    code: (typeof ErrorCode)['threadNotFound' | 'threadBusy' | 'threadClosed' | 'threadConfigMismatch' | 'turnResultUnavailable'],
    readonly threadId: string,
    message: string,
  ) {
    super(code, message);
  }
}

/**
 * A Worker Deployment setting the runtime refused (`DeploymentOptionsInvalid`: `field` names the
 * option or variable, e.g. `AGENT_BUILD_ID`), or a deployment or build the server does not know
 * (`DeploymentNotFound`: `field` is `deploymentName` or `buildId`). Thrown before anything is sent
 * to Temporal, or instead of the server's own error.
 * @example
 * import { DeploymentError, ErrorCode } from 'durable-agents';
 *
 * try {
 *   await deployments.setCurrent('agents', '2.4.0+abc123');
 * } catch (error) {
 *   if (error instanceof DeploymentError && error.code === ErrorCode.deploymentNotFound) console.error(error.message);
 *   else throw error;
 * }
 */
export class DeploymentError extends AgentRuntimeError {
  constructor(
    code: (typeof ErrorCode)['deploymentOptionsInvalid' | 'deploymentNotFound' | 'deploymentRoutingPending'],
    readonly field: string,
    message: string,
  ) {
    super(code, message);
  }
}
