import { ApplicationFailure, Context } from '@temporalio/activity';
import { withBudgetAdvisories, promptTokens } from '../budget/budget-advisory';
import type { ModelRegistry } from '../models/model-registry';
import { PriceTable } from '../models/model-prices';
import { ModelError, type ModelResponse } from '../models/model-provider';
import { classifyProviderError } from '../models/provider-errors';
import type { ToolRegistry } from '../tools/tool-registry';
import { ErrorCode } from '../protocol/errors';
import type { ModelStepInput, ModelStepResult } from '../protocol/run-types';
import type { ConversationSource } from './conversation-source';
import { LiveHeartbeat, ThrottledReport, withHeartbeat } from './heartbeat';
import { StepSpend } from './model-step-spend';
import { refuseCall } from './model-step-refusals';
import type { Message, ToolSpec } from '../protocol/messages';
import type { ModelTextSnapshot } from '../protocol/live-snapshots';
import { checkStructuredOutput } from './structured-output';
import { calledToolDescriptions, modelToolSpecs } from './model-tool-specs';
import { currentRunExecution } from './run-execution';
import { ACTIVITY_RESULT_LIMIT_BYTES, jsonBytes } from '../protocol/payload-size';
import { attemptNumber, callFailure } from './activity-attempts';
import { rethrowIfWorkerShutdown } from './worker-shutdown';
import type { WorkflowRetriesInput } from '../protocol/run-types';
import type { RetryableFailureDetails } from '../protocol/workflow-retries';
import type { HookRunner } from '../hooks/hook-runner';
import { ModelStepHookRun } from './model-step-hooks';
import { NO_TELEMETRY, type AgentTelemetry } from '../telemetry/agent-telemetry';

/** Streamed text goes into heartbeat details at most this often (the worker throttles further). */
const TEXT_REPORT_EVERY_MS = 100;

export interface ModelStepDependencies {
  models: ModelRegistry;
  tools: ToolRegistry;
  conversations: ConversationSource;
  /** Prices model calls (default: `DEFAULT_MODEL_PRICES` alone). */
  prices?: PriceTable;
  /** The worker's lifecycle hooks (none: no hook runs). */
  hooks?: HookRunner;
  /** Spans and metrics of model calls (`chat {model}`). Default: none. */
  telemetry?: AgentTelemetry;
}

/** Prices of a worker given none: the defaults. */
export const DEFAULT_PRICES = new PriceTable();

/**
 * One model call. Its input names the conversation (thread, epoch, message count) instead of
 * carrying it; its result, the assistant message, is the only place that message is recorded.
 * With budget awareness it counts the prompt: `per-message` adds advisories to what the model
 * sees; `limit` returns `overBudget` without calling the model when the prompt is too big. With a
 * cost limit it returns `overCostLimit` instead of calling when the call's worst case is more than
 * what the run has left. Each call is priced here (`costUsd`), so replay needs no price table.
 * Failures are classified: rate limits, 5xx and timeouts are retried by Temporal (honouring a
 * retry-after); auth, bad request and context length are non-retryable with a stable `type`.
 */
export function createModelStep(dependencies: ModelStepDependencies) {
  return async function modelStep(input: ModelStepInput): Promise<ModelStepResult> {
    refuseInvalidConfig(input, dependencies.tools);
    reportUnavailableTools(input, dependencies.tools);
    const live = new LiveHeartbeat();
    // Heartbeats from the start, not only around the call: reading the conversation (a query of the
    // run) can outlast the heartbeat timeout on a busy worker, and an attempt the server gave up on
    // meanwhile would still call (and pay) the provider, with no next attempt told of it.
    return withHeartbeat(() => step(dependencies, input, live), live);
  };
}

/** The model step's work (see `createModelStep`), heartbeating through `live`. */
async function step(dependencies: ModelStepDependencies, input: ModelStepInput, live: LiveHeartbeat): Promise<ModelStepResult> {
  // An earlier attempt's billed calls, and its reply when it kept one (then the provider is not called again).
  const spend = StepSpend.recover(live);
  const recovered = spend.recovered;
  const attempt = attemptNumber(input.workflowRetries);
  const conversation = await dependencies.conversations.load(currentRunExecution(), input.conversation);
  const hooks = dependencies.hooks ? ModelStepHookRun.of(dependencies.hooks, input, attempt, live) : null;
  if (!recovered) await hooks?.open(conversation);
  const tools = modelToolSpecs(dependencies.tools, input.toolNames, input.injectedToolArgs, input.extraToolSpecs, input.subagentChoices);
  let messages = conversation.messages;
  let tokens: number | undefined;
  const prices = dependencies.prices ?? DEFAULT_PRICES;
  if (input.budget) {
    if (input.budget.mode === 'per-message') messages = withBudgetAdvisories(conversation.system, tools, messages, input.budget.contextWindow);
    tokens = promptTokens(conversation.system, tools, messages);
  }
  // A recovered reply is paid for already: no refusal applies to it.
  const refusal = recovered ? null : refuseCall(input, prices, { system: conversation.system, tools, messages, tokens });
  if (refusal) return { ...refusal, ...(hooks && refusal.overBudget ? { hooks: hooks.report() } : {}), ...spend.resultFields() };
  if (!recovered) await hooks?.beforeCall(conversation.system, messages);
  const response =
    recovered ?? (await callProvider(dependencies, input, { attempt, system: conversation.system, messages, tools, prices, hooks, live }));
  const costUsd = prices.costOf(input.model, response.usage, input.price);
  if (!recovered) spend.answered({ attempt, usage: response.usage, costUsd });
  const childUnsafeTools = input.toolNames.filter((name) => dependencies.tools.get(name)?.childSafe === false);
  // The after-model hooks' text is what the run records: the original never leaves this activity.
  const text = recovered ? recovered.text : hooks ? await hooks.afterModel(response) : response.text;
  if (!recovered) spend.keepReply({ attempt, usage: response.usage, costUsd, text, toolCalls: response.toolCalls });
  const hookReport = hooks ? await hooks.decideCalls(response.toolCalls) : null;
  const toolDescriptions = calledToolDescriptions(tools, response.toolCalls);
  const result: ModelStepResult = {
    message: { role: 'assistant', content: text, toolCalls: response.toolCalls },
    usage: response.usage,
    model: input.model,
    costUsd,
    ...(tokens !== undefined ? { promptTokens: tokens } : {}),
    // Tool properties live on the worker; the workflow learns them from the step that may spawn.
    ...(childUnsafeTools.length > 0 ? { childUnsafeTools } : {}),
    ...(toolDescriptions ? { toolDescriptions } : {}),
    ...(hookReport ? { hooks: hookReport } : {}),
    ...spend.resultFields(),
  };
  if (input.outputSchema && response.toolCalls.length === 0) {
    const check = checkStructuredOutput(result.message.content, input.outputSchema);
    if (check.ok) result.structuredOutput = check.value;
    else result.outputError = check.error;
  }
  const bytes = jsonBytes(result);
  if (bytes > ACTIVITY_RESULT_LIMIT_BYTES) {
    // Temporal would refuse this result on every attempt: fail the step once, clearly.
    throw callFailure(input.workflowRetries, {
      type: ErrorCode.payloadTooLarge,
      message: `The reply of ${input.model} is ${bytes} bytes, more than a step may return (${ACTIVITY_RESULT_LIMIT_BYTES}; Temporal refuses 2 MB): lower max_tokens`,
      retryable: false,
    });
  }
  return result;
}

/** The provider's call, streaming its text into the heartbeat details (unless after-model hooks may redact it); its failures classified. */
async function callProvider(
  dependencies: ModelStepDependencies,
  input: ModelStepInput,
  call: {
    attempt: number;
    system: string;
    messages: Message[];
    tools: ToolSpec[];
    prices: PriceTable;
    hooks: ModelStepHookRun | null;
    live: LiveHeartbeat;
  },
): Promise<ModelResponse> {
  const { attempt, system, messages, tools, prices, hooks } = call;
  const purpose = input.purpose ?? 'executor';
  const holdText = hooks?.holdsText() ?? false;
  const telemetry = dependencies.telemetry ?? NO_TELEMETRY;
  // Text after-model hooks may redact is not streamed, nor captured on the span.
  const traced = {
    model: input.model,
    purpose,
    step: input.step,
    attempt,
    temperature: input.temperature,
    maxTokens: input.maxTokens,
    system,
    messages,
    holdOutput: holdText,
  };
  return withHeartbeat(async (live) => {
    let streamedText = '';
    const reports = new ThrottledReport(live, TEXT_REPORT_EVERY_MS);
    const onTextDelta = (delta: string) => {
      if (holdText) return;
      streamedText += delta;
      reports.offer((): ModelTextSnapshot => ({ kind: 'model-text', step: input.step, purpose, attempt, text: streamedText, at: Date.now() }));
    };
    try {
      const { provider, modelId } = dependencies.models.resolve(input.model);
      return await telemetry.modelCall(traced, async () => {
        const reply = await provider.complete({
          modelId,
          system,
          messages,
          tools,
          temperature: input.temperature,
          maxTokens: input.maxTokens,
          outputSchema: input.outputSchema,
          attempt,
          purpose,
          step: input.step,
          abortSignal: Context.current().cancellationSignal,
          onTextDelta,
        });
        // The call's price, for the cost metric (an unpriced call is not counted as free).
        const costUsd = prices.costOf(input.model, reply.usage, input.price);
        return costUsd === null ? reply : { ...reply, costUsd };
      });
    } catch (error) {
      // A step its stopping worker cancelled is not the provider's failure: it uses no retry.
      rethrowIfWorkerShutdown(`Model step ${input.step}`);
      const classified = classifyProviderError(error);
      await hooks?.failed(classified);
      throw input.providerLimited && classified.code === ErrorCode.modelRateLimited
        ? limiterFailure(classified, input.workflowRetries)
        : toApplicationFailure(classified, input.workflowRetries);
    } finally {
      reports.stop();
    }
  }, call.live);
}

/**
 * Config problems only a worker can see (it has the tools and compiles the schema), refused before
 * the model is called, with type `AgentConfigError` and never retried, so the run fails at once
 * naming the field instead of every tool call (or the first answer) failing: an injected arg that
 * is also a real parameter of one of the step's tools, MCP and handoff tools included (injected args are split off before a tool
 * runs, so the tool would never get its own argument), and an `output_type` that is not a valid
 * JSON Schema (clients that load config files refuse it before the run starts).
 */
function refuseInvalidConfig(input: ModelStepInput, tools: ToolRegistry): void {
  const problems: string[] = [];
  const injectedNames = Object.keys(input.injectedToolArgs);
  if (injectedNames.length > 0) {
    const specs = [...tools.specs(input.toolNames), ...(input.extraToolSpecs ?? [])];
    for (const spec of specs) {
      const parameters = Object.keys((spec.parameters.properties as Record<string, unknown> | undefined) ?? {});
      for (const name of injectedNames.filter((injected) => parameters.includes(injected))) {
        problems.push(
          `injected_tool_args.${name}: is also a parameter of tool '${spec.name}'; injected args are removed before a tool runs, so '${spec.name}' would never get its own '${name}': rename the injected arg`,
        );
      }
    }
  }
  if (input.outputSchema) {
    try {
      // Compiles (and caches) the schema the step's answer is checked against.
      checkStructuredOutput('null', input.outputSchema);
    } catch (error) {
      problems.push(`output_type: is not a valid JSON Schema: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) {
    throw ApplicationFailure.create({
      type: ErrorCode.agentConfigInvalid,
      message: `Invalid agent config: ${problems.join('; ')}`,
      nonRetryable: true,
      details: [{ problems }],
    });
  }
}

/**
 * Tools the config names that this worker does not have: the model is not offered them, and a call
 * to one is an unknown-tool result. Logged once a run (at its first model step) on the worker.
 */
function reportUnavailableTools(input: ModelStepInput, tools: ToolRegistry): void {
  if (input.step !== 1 || (input.purpose ?? 'executor') !== 'executor' || attemptNumber(input.workflowRetries) !== 1) return;
  const missing = input.toolNames.filter((name) => !tools.get(name));
  if (missing.length === 0) return;
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  Context.current().log.warn(`tools-unavailable: run ${workflowId} names tools this worker does not have: ${missing.join(', ')}`, {
    workflowId,
    tools: missing,
  });
}

/**
 * A 429 of a call made under a provider limit: never retried here nor by the workflow's tries (the
 * run pauses its limiter for everyone and asks it again), with the retry-after for that pause.
 */
/** A 429 of a call under a provider limit: not retried by the activity, the run asks its limiter again (with the provider's retry-after). */
export function limiterFailure(error: ModelError, workflowRetries?: WorkflowRetriesInput): ApplicationFailure {
  const details: RetryableFailureDetails = {
    retryable: false,
    attempts: attemptNumber(workflowRetries),
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  };
  return ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true, details: [details] });
}

/** A classified provider failure as the activity's failure, for the workflow's retry decision. */
export function toApplicationFailure(error: ModelError, workflowRetries?: WorkflowRetriesInput): ApplicationFailure {
  return callFailure(workflowRetries, { type: error.code, message: error.message, retryable: error.retryable, retryAfterMs: error.retryAfterMs });
}
