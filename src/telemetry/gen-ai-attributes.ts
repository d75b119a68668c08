// The names OpenTelemetry's GenAI semantic conventions give spans, attributes and metrics, and this runtime's own additions: one list shared by the worker and the workflow sandbox.

/** Attribute keys of the GenAI conventions (gen_ai.*) and of this runtime (durable_agents.*). */
export const Attribute = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cachedInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  tokenType: 'gen_ai.token.type',
  agentName: 'gen_ai.agent.name',
  /** A named agent's definition: `name@version` (docs/agents.md). */
  agentVersion: 'durable_agents.agent.version',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  errorType: 'error.type',
  /** 1 on an activity's first try, 2 on its first retry, ... */
  attempt: 'durable_agents.attempt',
  step: 'durable_agents.step',
  /** What a model call is for: executor, planner, compaction. */
  purpose: 'durable_agents.purpose',
  stopReason: 'durable_agents.stop_reason',
  toolOutcome: 'durable_agents.tool.outcome',
  approvalOutcome: 'durable_agents.approval.outcome',
  handoffTo: 'durable_agents.handoff.to',
  turn: 'durable_agents.thread.turn',
  runId: 'durable_agents.run_id',
} as const;

/** `gen_ai.operation.name` values. */
export const Operation = { chat: 'chat', executeTool: 'execute_tool', invokeAgent: 'invoke_agent' } as const;

/** Metric names: the GenAI conventions' two client metrics, then this runtime's. */
export const MetricName = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  toolCalls: 'durable_agents.tool.calls',
  toolDuration: 'durable_agents.tool.duration',
  approvalsWaiting: 'durable_agents.approvals.waiting',
  approvalWait: 'durable_agents.approval.wait.duration',
  runsFinished: 'durable_agents.runs.finished',
} as const;

/** `provider:model` (a config's `model`) split into the provider name and the model the provider is asked for. */
export function splitModel(model: string): { provider: string; model: string } {
  const colon = model.indexOf(':');
  return colon < 0 ? { provider: 'unknown', model } : { provider: model.slice(0, colon), model: model.slice(colon + 1) };
}
