/**
 * Error types with stable codes. Across Temporal they travel as `ApplicationFailure` with `type`
 * set to the code; tests assert on codes, never on message text.
 */

export const ErrorCode = {
  agentConfigInvalid: 'AgentConfigError',
  duplicateTool: 'DuplicateToolError',
  toolNotFound: 'ToolNotFoundError',
  toolArgumentsInvalid: 'ToolArgumentsInvalid',
  toolFailed: 'ToolFailed',
  modelNotFound: 'ModelNotFoundError',
  modelRateLimited: 'ModelRateLimited',
  modelServerError: 'ModelServerError',
  modelTimeout: 'ModelTimeout',
  modelAuthFailed: 'ModelAuthFailed',
  modelBadRequest: 'ModelBadRequest',
  contextLengthExceeded: 'ContextLengthExceeded',
  missingApiKey: 'MissingApiKey',
  scriptedModelMismatch: 'ScriptedModelMismatch',
  conversationUnavailable: 'ConversationUnavailable',
  approvalRefused: 'ApprovalRefused',
  emptyMessage: 'EmptyMessage',
  subagentRefused: 'SubagentRefused',
  toolsModuleInvalid: 'ToolsModuleError',
  searchAttributesMissing: 'SearchAttributesMissing',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class: every error of this runtime carries a stable code. */
export class AgentRuntimeError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
  ) {
    super(message);
    this.name = code;
  }
}

/** An agent config that failed validation; `problems` has one line per invalid field. */
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

/** A decision the run refused: unknown, already decided or expired approval id. */
export class ApprovalRefusedError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.approvalRefused, message);
  }
}

/** An injected message with no text. */
export class EmptyMessageError extends AgentRuntimeError {
  constructor() {
    super(ErrorCode.emptyMessage, 'text: an injected message must not be empty');
  }
}

/** A `--tools` module that cannot be loaded, or does not export tools. */
export class ToolsModuleError extends AgentRuntimeError {
  constructor(message: string) {
    super(ErrorCode.toolsModuleInvalid, message);
  }
}

/** The namespace lacks this runtime's search attributes (a one-time `durable-agents setup`). */
export class SearchAttributesMissingError extends AgentRuntimeError {
  constructor(namespace: string, detail: string) {
    super(
      ErrorCode.searchAttributesMissing,
      `The namespace '${namespace}' has no search attributes for agent runs (${detail}). Register them once: ` +
        '`npx durable-agents setup` (or registerSearchAttributes() from durable-agents/worker).',
    );
  }
}
