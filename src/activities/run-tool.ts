import { Context } from '@temporalio/activity';
import { ErrorCode } from '../protocol/errors';
import type { RunToolInput, ToolResult } from '../protocol/run-types';
import { unverifiedApprovalRefusal, type VerifiedApprovalsDependencies } from './verified-approvals';
import { buildToolResult } from '../protocol/tool-results';
import { RetryableToolError, type ToolContext } from '../tools/define-tool';
import type { ToolRegistry } from '../tools/tool-registry';
import { LiveHeartbeat, withHeartbeat } from './heartbeat';
import { ProgressReporter } from './progress-reporter';
import { splitInjectedArgs } from '../protocol/split-injected-args';
import { currentRunExecution } from './run-execution';
import type { ArtifactStore } from '../artifacts/artifact-store';
import { offloadToolContent } from './offload-tool-content';
import { baseActivityId } from '../protocol/workflow-retries';
import { cutToLimit, TOOL_CONTENT_LIMIT_CHARACTERS } from '../protocol/payload-size';
import { attemptNumber, callFailure } from './activity-attempts';
import { rethrowIfWorkerShutdown } from './worker-shutdown';
import type { HookRunner } from '../hooks/hook-runner';
import { runToolHooks, type ToolOutcome } from './tool-hooks';
import { NO_TELEMETRY, type AgentTelemetry } from '../telemetry/agent-telemetry';

export interface RunToolDependencies extends VerifiedApprovalsDependencies {
  tools: ToolRegistry;
  /** Where results above the run's offload threshold go; without one, nothing is offloaded. */
  artifacts?: ArtifactStore;
  /** The worker's lifecycle hooks: after-tool and error hooks run here (none: no hook runs). */
  hooks?: HookRunner;
  /** Spans and metrics of tool calls (`execute_tool {name}`). Default: none. */
  telemetry?: AgentTelemetry;
}

/**
 * Runs one tool call, at least once: a worker that dies after the tool ran but before the
 * completion reached the server runs it again, with the same `idempotencyKey`. Bad input never
 * fails the run: an unknown tool, arguments that fail the tool's schema, or a tool that throws
 * become an error result the model sees. A `RetryableToolError` is tried again (up to five tries);
 * a dead worker or a timeout is retried for as long as the run lives, and so is a call its
 * stopping worker cancelled at the end of its shutdown grace time (never an error result).
 */
export function createRunTool(dependencies: RunToolDependencies) {
  const telemetry = dependencies.telemetry ?? NO_TELEMETRY;
  return async function runTool(input: RunToolInput): Promise<ToolResult> {
    return telemetry.toolCall({ call: input.call, step: input.step, attempt: attemptNumber(input.workflowRetries) }, () =>
      runToolCall(input, dependencies),
    );
  };
}

/** One tool call, as `runTool` describes (its span and metrics are recorded around it). */
async function runToolCall(input: RunToolInput, dependencies: RunToolDependencies): Promise<ToolResult> {
  const startedAt = Date.now();
  const { call, step } = input;
  const { executable, injected } = splitInjectedArgs(call.args, input.injectedArgNames);
  const finish = (content: string, errorCode?: string, artifactId: string | null = null): ToolResult =>
    buildToolResult({
      call,
      step,
      content,
      startedAt,
      completedAt: Date.now(),
      errorCode,
      approvalId: input.approvalId,
      injectedArgs: injected,
      artifactId,
    });

  const unverified = unverifiedApprovalRefusal(dependencies, input);
  if (unverified !== null) return finish(unverified, ErrorCode.decisionUnverified);
  const tool = dependencies.tools.get(call.name);
  if (!tool) {
    // Not the worker's list: it may hold tools this agent does not have (the workflow adds the agent's).
    return finish(`Error: tool '${call.name}' is not available: no worker of this run has it.`, ErrorCode.toolNotFound);
  }
  const activity = Context.current();
  const { workflowId, runId } = currentRunExecution();
  const live = new LiveHeartbeat(activity);
  const progress = new ProgressReporter(live, { step, callId: call.id, toolName: call.name, quiet: Boolean(input.quietProgress) });
  const attempt = attemptNumber(input.workflowRetries);
  const toolContext: ToolContext = {
    workflowId,
    runId,
    callId: call.id,
    step,
    idempotencyKey: input.idempotencyKey ?? `${workflowId}/${baseActivityId(activity.info.activityId)}`,
    ...(input.resourceId !== undefined ? { resourceId: input.resourceId } : {}),
    attempt,
    signal: activity.cancellationSignal,
    heartbeat: (details) => live.report(details),
    reportProgress: (value, total, message) => {
      progress.report(value, total, message);
    },
  };
  const executed = async (): Promise<ToolOutcome> => {
    const parsed = tool.parameters.safeParse(executable);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`);
      return { content: `Error: invalid arguments for '${call.name}': ${problems.join('; ')}`, errorCode: ErrorCode.toolArgumentsInvalid };
    }
    try {
      const output = await withHeartbeat(async () => tool.execute(parsed.data, toolContext), live);
      return { content: typeof output === 'string' ? output : (JSON.stringify(output) ?? '') };
    } catch (error) {
      rethrowIfWorkerShutdown(`Tool '${call.name}'`);
      if (error instanceof RetryableToolError) {
        throw callFailure(input.workflowRetries, { type: ErrorCode.retryableTool, message: error.message, retryable: true });
      }
      const message = error instanceof Error ? error.message : String(error);
      return { content: `Error: tool '${call.name}' failed: ${message}`, errorCode: ErrorCode.toolFailed };
    }
  };
  // The hooks see (and may redact) the whole content, before it is offloaded or cut.
  const { hookFailures, ...outcome } = await runToolHooks(dependencies.hooks, input, attempt, await executed());
  const reported = hookFailures ? { hookFailures } : {};
  if (outcome.errorCode !== undefined) return { ...finish(outcome.content, outcome.errorCode), ...reported };
  try {
    // Past the hard limit a result is offloaded whatever the agent's threshold (or cut, without a store).
    const threshold = Math.min(input.offloadThreshold ?? TOOL_CONTENT_LIMIT_CHARACTERS, TOOL_CONTENT_LIMIT_CHARACTERS);
    const offloaded = await offloadToolContent(dependencies.artifacts, outcome.content, threshold, {
      workflowId,
      toolName: call.name,
      callId: call.id,
    });
    const result = offloaded ? finish(offloaded.preview, undefined, offloaded.artifactId) : finish(cutToLimit(outcome.content));
    return { ...result, ...(progress.notes.length > 0 ? { progress: progress.notes } : {}), ...reported };
  } catch (error) {
    rethrowIfWorkerShutdown(`Tool '${call.name}'`);
    const message = error instanceof Error ? error.message : String(error);
    return { ...finish(`Error: tool '${call.name}' failed: ${message}`, ErrorCode.toolFailed), ...reported };
  }
}
