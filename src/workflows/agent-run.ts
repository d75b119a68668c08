import {
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities';
import { ErrorCode } from '../shared/errors';
import type { Message, ToolCall } from '../shared/messages';
import { conversationQuery, eventsQuery, statusQuery } from '../shared/run-messages';
import {
  DEFAULT_TIMEOUTS,
  type AgentRunInput,
  type AgentRunResult,
  type ApprovalRecord,
  type ModelStepResult,
  type RunPhase,
  type StopReason,
  type ToolResult,
} from '../shared/run-types';
import { AgentNameAttribute, AgentStatusAttribute } from '../shared/search-attributes';
import {
  addUsage,
  buildSystemPrompt,
  emptyUsage,
  initialMessages,
  lastAssistantText,
  outputCorrectionMessage,
  summarizeToolResult,
  toToolMessage,
  unapprovedResult,
  workflowErrorResult,
} from './agent-loop';
import { EventLog } from './event-log';
import { ApprovalGate } from './approval-gate';
import { parseDuration } from '../shared/duration';

const EVENT_LOG_CAPACITY = 1000;

/** Model failures that retrying cannot fix. */
const NON_RETRYABLE_MODEL_ERRORS = [
  ErrorCode.contextLengthExceeded,
  ErrorCode.modelAuthFailed,
  ErrorCode.modelBadRequest,
  ErrorCode.modelNotFound,
  ErrorCode.missingApiKey,
  ErrorCode.scriptedModelMismatch,
];

/**
 * One agent run: model step → the requested tool calls in parallel, each its own activity →
 * results fed back → repeat until a text-only answer or `max_steps`. Every message enters the
 * history once; model steps read the conversation through the `conversation` query.
 * A stop (max steps, context length, invalid output) is a normal result with its reason.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentRunResult> {
  const { config } = input;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...input.timeouts };
  const system = buildSystemPrompt(config);
  const messages: Message[] = initialMessages(input);
  const conversationEpoch = 0;
  const activeTools = [...config.tools];
  const injectedArgNames = Object.keys(config.injected_tool_args);
  const events = new EventLog(EVENT_LOG_CAPACITY);
  const usage = emptyUsage();
  const toolResults: ToolResult[] = [];
  const runningTools: string[] = [];
  let phase: RunPhase = 'starting';
  let step = 0;
  let stopReason: StopReason | null = null;

  setHandler(conversationQuery, ({ epoch, from, count }) => ({
    epoch: conversationEpoch,
    system,
    from,
    messages: epoch === conversationEpoch ? messages.slice(from, count) : [],
  }));
  setHandler(statusQuery, () => ({
    phase,
    step,
    maxSteps: config.max_steps,
    activeTools: [...activeTools],
    runningTools: [...runningTools],
    usage,
    messageCount: messages.length,
    stopReason,
    pendingApprovals: approvals.book.pending(),
  }));
  setHandler(eventsQuery, (cursor, limit = 200) => events.page(cursor, limit, stopReason !== null));
  const approvals = new ApprovalGate(events, parseDuration(config.hitl_timeout), injectedArgNames);

  if (!workflowInfo().typedSearchAttributes.get(AgentNameAttribute)) {
    upsertSearchAttributes([
      { key: AgentNameAttribute, value: config.name },
      { key: AgentStatusAttribute, value: 'running' },
    ]);
  }
  events.push({ type: 'run-started', agent: config.name, model: config.model, task: input.task });

  const enterPhase = (next: RunPhase) => {
    phase = next;
    events.push({ type: 'status-changed', phase: next, step });
    setCurrentDetails(`step ${step} of ${config.max_steps}: ${next}`);
  };

  const finish = (reason: StopReason, output: string, extra: Partial<AgentRunResult> = {}): AgentRunResult => {
    stopReason = reason;
    phase = 'completed';
    upsertSearchAttributes([{ key: AgentStatusAttribute, value: 'completed' }]);
    events.push({ type: 'run-completed', stopReason: reason, output });
    setCurrentDetails(`completed: ${reason}`);
    return { output, stopReason: reason, steps: step, usage, toolResults, ...extra };
  };

  const runToolCall = async (call: ToolCall, index: number): Promise<ToolResult> => {
    if (!activeTools.includes(call.name)) {
      const available = activeTools.join(', ') || 'none';
      return workflowErrorResult(call, step, Date.now(), `Error: unknown tool '${call.name}'. Available tools: ${available}`, ErrorCode.toolNotFound);
    }
    let approval: ApprovalRecord | null = null;
    if (config.hitl_tools.includes(call.name)) {
      approval = await approvals.awaitDecision(call, step, index);
      if (approval.outcome !== 'approved') return unapprovedResult(call, step, approval);
    }
    runningTools.push(call.name);
    try {
      const { runTool } = proxyActivities<AgentActivities>(
        toolActivityOptions(`step-${step}.tool-${index + 1}.${call.name}`, `step ${step}: tool ${call.name}`, timeouts),
      );
      return await runTool({ call, step, injectedArgNames, ...(approval ? { approvalId: approval.approvalId } : {}) });
    } catch (error) {
      if (isCancellation(error)) throw error;
      return workflowErrorResult(call, step, Date.now(), `Error: tool '${call.name}' did not complete: ${describeFailure(error)}`, ErrorCode.toolFailed);
    } finally {
      runningTools.splice(runningTools.indexOf(call.name), 1);
    }
  };

  for (step = 1; step <= config.max_steps; step++) {
    enterPhase('model');
    let reply: ModelStepResult;
    try {
      const { modelStep } = proxyActivities<AgentActivities>({
        activityId: `step-${step}.model`,
        summary: `step ${step}: model ${config.model}`,
        startToCloseTimeout: timeouts.modelStepMs,
        heartbeatTimeout: timeouts.heartbeatMs,
        retry: {
          maximumAttempts: config.max_retries,
          initialInterval: '1s',
          backoffCoefficient: 2,
          maximumInterval: '1m',
          nonRetryableErrorTypes: NON_RETRYABLE_MODEL_ERRORS,
        },
      });
      reply = await modelStep({
        conversation: { epoch: conversationEpoch, count: messages.length },
        model: config.model,
        temperature: config.temperature,
        maxTokens: config.max_tokens,
        toolNames: activeTools,
        injectedToolArgs: config.injected_tool_args,
        outputSchema: config.output_type,
        step,
      });
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (failureType(error) === ErrorCode.contextLengthExceeded) {
        return finish('context_length_exceeded', lastAssistantText(messages), {
          stopDetail: `The conversation no longer fits the context window of ${config.model}: ${describeFailure(error)}`,
        });
      }
      throw ApplicationFailure.nonRetryable(
        `Model step ${step} (${config.model}) failed: ${describeFailure(error)}`,
        failureType(error) ?? 'ModelStepFailed',
      );
    }

    addUsage(usage, reply.model, reply.usage);
    messages.push(reply.message);
    if (reply.message.content) events.push({ type: 'text-produced', step, text: reply.message.content });
    const calls = reply.message.toolCalls;

    if (calls.length === 0) {
      if (reply.outputError === undefined) {
        return finish('completed', reply.message.content, reply.structuredOutput !== undefined ? { structuredOutput: reply.structuredOutput } : {});
      }
      events.push({ type: 'output-rejected', step, reason: reply.outputError });
      if (step === config.max_steps) {
        return finish('output_invalid', reply.message.content, { stopDetail: reply.outputError });
      }
      messages.push(outputCorrectionMessage(reply.outputError));
      continue;
    }

    enterPhase('tools');
    for (const call of calls) events.push({ type: 'tool-called', step, call });
    const results = await Promise.all(calls.map(runToolCall));
    for (const result of results) {
      messages.push(toToolMessage(result));
      toolResults.push(summarizeToolResult(result));
      events.push({
        type: 'tool-completed',
        step,
        callId: result.callId,
        toolName: result.toolName,
        content: result.content,
        isError: result.isError,
        metadata: result.metadata,
      });
    }
  }
  step = config.max_steps;
  return finish('max_steps', lastAssistantText(messages), {
    stopDetail: `Stopped after max_steps (${config.max_steps}) model steps without a final answer`,
  });
}

function toolActivityOptions(activityId: string, summary: string, timeouts: typeof DEFAULT_TIMEOUTS): ActivityOptions {
  return {
    activityId,
    summary,
    startToCloseTimeout: timeouts.toolMs,
    heartbeatTimeout: timeouts.heartbeatMs,
    // Tool errors are results, not failures: only a dead worker or a RetryableToolError retries.
    retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
  };
}

/** The `type` of the ApplicationFailure at the root of an activity failure, if any. */
function failureType(error: unknown): string | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    if (current instanceof ApplicationFailure && current.type) return current.type;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describeFailure(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  while (current && typeof current === 'object' && (current as { cause?: unknown }).cause) {
    current = (current as { cause?: unknown }).cause;
    if (current instanceof Error && current.message) message = current.message;
  }
  return message;
}
