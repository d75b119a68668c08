import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { AgentRunResult, ToolResult } from '../protocol/run-types';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Reading the events of an agent run's history: payloads, child outcomes, failures, times. */

/**
 * Tool results the run recorded, by "step:callId": the completed run's `toolResults` (a run that
 * continued as new carries its results by reference, not in its history).
 */
export function recordedToolResults(events: HistoryEvent[]): Map<string, ToolResult> {
  const results = new Map<string, ToolResult>();
  for (const event of events) {
    const completed = event.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    const list = completed ? decode<AgentRunResult>(completed)?.toolResults : undefined;
    for (const result of list ?? []) results.set(`${result.step}:${result.callId}`, result);
  }
  return results;
}

export function childOutcome(
  event: HistoryEvent,
): { initiatedEventId: string; runId: string | null; status: string; result: AgentRunResult | null; failure: string | null } | null {
  const startedChild = event.childWorkflowExecutionStartedEventAttributes;
  if (startedChild)
    return {
      initiatedEventId: String(startedChild.initiatedEventId),
      runId: startedChild.workflowExecution?.runId ?? null,
      status: 'running',
      result: null,
      failure: null,
    };
  const completedChild = event.childWorkflowExecutionCompletedEventAttributes;
  if (completedChild) {
    return {
      initiatedEventId: String(completedChild.initiatedEventId),
      runId: completedChild.workflowExecution?.runId ?? null,
      status: 'completed',
      result: decode<AgentRunResult>(completedChild.result?.payloads?.[0]),
      failure: null,
    };
  }
  const failedChild = event.childWorkflowExecutionFailedEventAttributes;
  if (failedChild)
    return {
      initiatedEventId: String(failedChild.initiatedEventId),
      runId: failedChild.workflowExecution?.runId ?? null,
      status: 'failed',
      result: null,
      failure: failureText(failedChild.failure),
    };
  const other =
    (event.childWorkflowExecutionTimedOutEventAttributes && { ids: event.childWorkflowExecutionTimedOutEventAttributes, status: 'timed out' }) ||
    (event.childWorkflowExecutionCanceledEventAttributes && { ids: event.childWorkflowExecutionCanceledEventAttributes, status: 'cancelled' }) ||
    (event.childWorkflowExecutionTerminatedEventAttributes && { ids: event.childWorkflowExecutionTerminatedEventAttributes, status: 'terminated' });
  if (other)
    return {
      initiatedEventId: String(other.ids.initiatedEventId),
      runId: other.ids.workflowExecution?.runId ?? null,
      status: other.status,
      result: null,
      failure: null,
    };
  const notStarted = event.startChildWorkflowExecutionFailedEventAttributes;
  if (notStarted)
    return {
      initiatedEventId: String(notStarted.initiatedEventId),
      runId: null,
      status: 'not started',
      result: null,
      failure: String(notStarted.cause ?? 'failed'),
    };
  return null;
}

/** The failure's message with its causes ("activity failed: tool exploded"), without stack traces. */
export function failureText(failure: temporal.api.failure.v1.IFailure | null | undefined): string {
  const parts: string[] = [];
  for (let current = failure; current && parts.length < 4; current = current.cause) {
    if (current.message && !parts.includes(current.message)) parts.push(current.message);
  }
  return parts.join(': ') || 'failed';
}

/** The first `ApplicationFailure` type in a failure's chain (the run's stable error code), or null. */
export function failureTypeOf(failure: temporal.api.failure.v1.IFailure | null | undefined): string | null {
  for (let current = failure; current; current = current.cause) {
    if (current.applicationFailureInfo?.type) return current.applicationFailureInfo.type;
  }
  return null;
}

/** "step-3.compaction" → 3. */
export function stepOf(activityId: string): number {
  return Number(/^step-(\d+)/.exec(activityId)?.[1] ?? 0);
}

export function finishedStatus(
  event: HistoryEvent,
): { status: string; result: AgentRunResult | null; failure: string | null; failureType?: string | null } | null {
  if (event.workflowExecutionCompletedEventAttributes) {
    return {
      status: 'completed',
      result: decode<AgentRunResult>(event.workflowExecutionCompletedEventAttributes.result?.payloads?.[0]),
      failure: null,
    };
  }
  const failed = event.workflowExecutionFailedEventAttributes?.failure;
  if (event.workflowExecutionFailedEventAttributes) {
    return { status: 'failed', result: null, failure: failed?.message ?? 'failed', failureType: failureTypeOf(failed) };
  }
  if (event.workflowExecutionTimedOutEventAttributes) return { status: 'timed out', result: null, failure: null };
  if (event.workflowExecutionCanceledEventAttributes) return { status: 'cancelled', result: null, failure: null };
  if (event.workflowExecutionTerminatedEventAttributes) {
    return { status: 'terminated', result: null, failure: event.workflowExecutionTerminatedEventAttributes.reason ?? null };
  }
  if (event.workflowExecutionContinuedAsNewEventAttributes) return { status: 'continued as new', result: null, failure: null };
  return null;
}

export function decode<T>(payload: temporal.api.common.v1.IPayload | null | undefined): T | null {
  if (!payload) return null;
  try {
    return defaultPayloadConverter.fromPayload<T>(payload);
  } catch {
    return null;
  }
}

export function eventTime(event: HistoryEvent): number {
  const time = event.eventTime;
  if (!time) return 0;
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

export function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
