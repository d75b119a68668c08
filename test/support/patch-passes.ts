// How to tell that a recorded history went through the code of each patch (the patch register test's predicates).
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { DEFAULT_CONTINUE_AS_NEW_POINT } from '../../src/workflows/loop-decisions';
import { validateApprovalDecision, validateInjectedMessage, validateSkillBatch } from '../../src/protocol/message-validation';
import { WireName } from '../../src/protocol/wire-names';
import { ErrorCode } from '../../src/protocol/errors';
import { usesTemplateVariables } from '../../src/config/instructions-template';
import * as register from '../../src/workflows/patches';
import { MAX_WORKFLOW_ID_LENGTH } from '../../src/workflows/workflow-ids';
import { upgradeConfig } from '../../src/config/upgrade-config';
import type { AgentRunInput, RunToolInput } from '../../src/protocol/run-types';
import type { CarriedThreadState } from '../../src/protocol/thread-types';
import { callFingerprint, emptyLoopWatch, findLoop, loopDetectionSettings } from '../../src/workflows/loop-detection';
import { matchToolPolicy, toolGate } from '../../src/config/tool-policy-rules';
import { splitInjectedArgs } from '../../src/protocol/split-injected-args';
import { patchMarkersOf } from './history-corpus';

type History = temporal.api.history.v1.History;

function decoded<T>(payload: temporal.api.common.v1.IPayload | undefined): T | undefined {
  return payload ? defaultPayloadConverter.fromPayload<T>(payload) : undefined;
}

function lastEvent(history: History): temporal.api.history.v1.IHistoryEvent | undefined {
  return history.events?.at(-1);
}

function agentNameOf(payload: temporal.api.common.v1.IPayload | undefined): string | undefined {
  return decoded<{ config?: { name?: string } }>(payload)?.config?.name;
}

const SIGNAL_VALIDATORS: Record<string, (payload: unknown) => { ok: boolean }> = {
  [WireName.approvalSignal]: validateApprovalDecision,
  [WireName.injectMessageSignal]: validateInjectedMessage,
  [WireName.skillsChangedSignal]: validateSkillBatch,
};

/**
 * How to tell that an execution went through a patch's code (so a history without its marker is
 * really the old branch, not a run that never reached it). A new patch needs its entry here.
 */
export const PASSES_PATCHED_CODE: Record<string, (history: History) => boolean> = {
  [register.HANDOFF_SEARCH_ATTRIBUTES_PATCH]: (history) => {
    const continued = lastEvent(history)?.workflowExecutionContinuedAsNewEventAttributes;
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    return Boolean(continued) && agentNameOf(continued?.input?.payloads?.[0]) !== agentNameOf(started?.input?.payloads?.[0]);
  },
  [register.UNBOUNDED_INFRASTRUCTURE_RETRIES_PATCH]: (history) =>
    (history.events ?? []).some((event) => ['modelStep', 'compactConversation', 'runTool', 'callMcpTool'].includes(event.activityTaskScheduledEventAttributes?.activityType?.name ?? '')),
  [register.BOUNDED_CONTINUATION_PATCH]: (history) => Boolean(lastEvent(history)?.workflowExecutionContinuedAsNewEventAttributes),
  [register.STATUS_ON_CLOSE_PATCH]: (history) => {
    const last = lastEvent(history);
    return Boolean(last?.workflowExecutionContinuedAsNewEventAttributes || last?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo);
  },
  [register.VALIDATED_SIGNALS_PATCH]: (history) =>
    (history.events ?? []).some((event) => {
      const signal = event.workflowExecutionSignaledEventAttributes;
      const validate = SIGNAL_VALIDATORS[signal?.signalName ?? ''];
      return Boolean(validate) && !validate!(decoded(signal?.input?.payloads?.[0])).ok;
    }),
  [register.BOUNDED_CHILD_IDS_PATCH]: (history) =>
    (history.events ?? []).some((event) => (event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId?.length ?? 0) > MAX_WORKFLOW_ID_LENGTH),
  // A user's own workflow (not an agent run) that starts an agent child.
  [register.RUN_AGENT_SEARCH_ATTRIBUTES_PATCH]: (history) =>
    history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name !== WireName.agentRunWorkflow &&
    (history.events ?? []).some((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === WireName.agentRunWorkflow),
  // An agent run with skill sources that starts a sub-agent.
  [register.SUBAGENT_SKILL_SOURCES_PATCH]: (history) =>
    (decoded<{ config?: { skill_sources?: string[] } }>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0])?.config?.skill_sources?.length ?? 0) > 0 &&
    (history.events ?? []).some((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === WireName.agentRunWorkflow),
  // A continuation that took the bounded path (the carried-references call sits inside it).
  [register.CARRIED_REFERENCES_PATCH]: (history) =>
    Boolean(lastEvent(history)?.workflowExecutionContinuedAsNewEventAttributes) && patchMarkersOf(history).includes(register.BOUNDED_CONTINUATION_PATCH),
  // An execution of a run without a limit of its own that reached the default point (and continued there).
  [register.DEFAULT_CONTINUE_AS_NEW_POINT_PATCH]: (history) =>
    (history.events?.length ?? 0) >= DEFAULT_CONTINUE_AS_NEW_POINT.events && Boolean(lastEvent(history)?.workflowExecutionContinuedAsNewEventAttributes),
  // A run started with AgentCostUsd, or with a cost limit.
  [register.COST_ACCOUNTING_PATCH]: (history) => {
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    const config = decoded<{ config?: { cost_limit?: number; thread_cost_limit?: number } }>(started?.input?.payloads?.[0])?.config;
    return Boolean(started?.searchAttributes?.indexedFields?.AgentCostUsd) || config?.cost_limit !== undefined || config?.thread_cost_limit !== undefined;
  },
  [register.LOOP_DETECTION_PATCH]: (history) => {
    const config = configOf(history);
    const settings = loopDetectionSettings(config);
    const watch = emptyLoopWatch();
    // The tool calls the run made, step by step: would the rule have found a loop?
    const steps = new Map<number, RunToolInput[]>();
    for (const input of toolCallsOf(history)) steps.set(input.step, [...(steps.get(input.step) ?? []), input]);
    return (
      settings !== null &&
      [...steps.values()].some((calls) => {
        const { finding, recent } = findLoop(watch, calls.map((input) => callFingerprint(input.call, input.injectedArgNames)), settings);
        watch.recent = recent;
        return finding !== null;
      })
    );
  },
  // The run failed on a model step whose retryable failures used up max_retries tries.
  [register.MODEL_RETRIES_EXHAUSTED_PATCH]: (history) => {
    const failure = lastEvent(history)?.workflowExecutionFailedEventAttributes?.failure;
    const type = failure?.applicationFailureInfo?.type ?? '';
    return type === ErrorCode.modelRetriesExhausted || (RETRYABLE_MODEL_FAILURES as string[]).includes(type);
  },
  // A tool call the run made that a rule of its config denies, or sends for an approval hitl_tools would not ask for.
  [register.TOOL_POLICIES_PATCH]: (history) => {
    const config = configOf(history);
    return toolCallsOf(history).some(({ call, injectedArgNames }) => {
      const inHitlTools = config.hitl_tools.includes(call.name);
      const gate = toolGate(matchToolPolicy(config.tool_policies, call.name, splitInjectedArgs(call.args, injectedArgNames).executable), inHitlTools);
      return gate === 'deny' || (gate === 'require_approval' && !inHitlTools);
    });
  },
  // A model step said its worker has hooks (only then are decisions applied or the lifecycle activity run).
  [register.LIFECYCLE_HOOKS_PATCH]: (history) =>
    (history.events ?? []).some((event) => Boolean(decoded<{ hooks?: { points?: string[] } }>(event.activityTaskCompletedEventAttributes?.result?.payloads?.[0])?.hooks?.points?.length)),
  [register.DYNAMIC_INSTRUCTIONS_PATCH]: (history) => {
    const input = decoded<{ config?: { instructions?: string; instructions_provider?: string | null } }>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
    return Boolean(input?.config?.instructions_provider) || usesTemplateVariables(input?.config?.instructions ?? '');
  },
  // A thread that ran a turn (its start and its end set the attribute).
  [register.THREAD_LAST_ACTIVITY_PATCH]: (history) =>
    history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name === WireName.agentThreadWorkflow &&
    (history.events ?? []).some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'modelStep'),
  // A thread that continued as new (or closed to reopen) carrying recent turns that ran tools.
  [register.THREAD_CARRIED_TURNS_PATCH]: (history) => {
    const last = lastEvent(history);
    const next = last?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0] ?? last?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    const carried = decoded<{ carriedThread?: CarriedThreadState; reopenWith?: { carriedThread?: CarriedThreadState } }>(next);
    const turns = carried?.carriedThread?.recentTurns ?? carried?.reopenWith?.carriedThread?.recentTurns ?? [];
    return turns.some((turn) => turn.toolResults.length > 0 || (turn.toolResultsStored ?? 0) > 0);
  },
  // A thread created to reopen, that closed.
  [register.THREAD_REOPEN_PATCH]: (history) =>
    decoded<{ settings?: { whenClosed?: string } }>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0])?.settings?.whenClosed === 'reopen' &&
    Boolean(lastEvent(history)?.workflowExecutionCompletedEventAttributes),
  // An agent run whose config limits a model it called.
  [register.PROVIDER_LIMITS_PATCH]: (history) => {
    const config = decoded<{ config?: { provider_limits?: Record<string, unknown> } }>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0])?.config;
    const limited = Object.keys(config?.provider_limits ?? {});
    return (history.events ?? []).some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'modelStep' && limited.length > 0);
  },
  // An agent run under a concurrency cap (its agent's max_concurrent_runs, its start's concurrency, or slots its chain carried).
  [register.CONCURRENCY_CAPS_PATCH]: (history) => {
    const input = decoded<{ config?: { max_concurrent_runs?: number }; concurrency?: unknown; heldSlots?: unknown[] }>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
    return input?.config?.max_concurrent_runs !== undefined || input?.concurrency !== undefined || (input?.heldSlots?.length ?? 0) > 0;
  },
  // An agent run with provider limits that compacted under its model's limit, or asked its instructions provider.
  [register.PROVIDER_LIMITED_CALLS_PATCH]: (history) => {
    const config = decoded<{ config?: { model?: string; provider_limits?: Record<string, unknown> } }>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0])?.config;
    if (!config?.provider_limits) return false;
    const scheduled = (history.events ?? []).map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name);
    return (config.model !== undefined && config.provider_limits[config.model] !== undefined && scheduled.includes('compactConversation')) || scheduled.includes('resolveInstructions');
  },
  // A fork started with edits.
  [register.FORK_EDITS_PATCH]: (history) =>
    (decoded<{ fork?: { edits?: unknown[] } }>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0])?.fork?.edits?.length ?? 0) > 0,  // An agent run or thread that took a step (every execution asks at its first step or model call).
  [register.LEAN_STEPS_PATCH]: (history) => (history.events ?? []).some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'modelStep'),
};

/** Model failures that a model step retries, within max_retries. */
const RETRYABLE_MODEL_FAILURES = [ErrorCode.modelServerError, ErrorCode.modelRateLimited, ErrorCode.modelTimeout];

/** The agent config an execution started with, upgraded as the workflow upgrades it. */
function configOf(history: History) {
  return upgradeConfig(decoded<AgentRunInput>(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0])!.config);
}

/** The inputs of the tool activities an execution scheduled, first tries only, in order. */
function toolCallsOf(history: History): RunToolInput[] {
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'runTool' || scheduled.activityId?.includes('.try-')) return [];
    return [decoded<RunToolInput>(scheduled.input?.payloads?.[0])!];
  });
}
