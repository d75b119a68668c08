import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { decodeHistoryPayloads } from './decode-history';
import type { temporal } from '@temporalio/proto';
import type { AgentRunInput, AgentRunResult, ModelStepInput, ModelStepResult, RunToolInput, ToolResult } from '../shared/run-types';

/**
 * A readable transcript of an agent run, built from its Temporal history alone (so it works for
 * any run, finished or not, on any worker version): steps, tool calls with arguments and results,
 * timings and retries.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export type TranscriptEntry =
  | { kind: 'started'; at: string; agent: string; model: string; task: string; continued: boolean }
  | {
      kind: 'model';
      step: number;
      activityId: string;
      at: string;
      durationMs: number | null;
      attempts: number;
      model: string;
      text: string | null;
      toolCalls: Array<{ id: string; name: string; args: unknown }>;
      failure: string | null;
    }
  | {
      kind: 'tool';
      step: number;
      activityId: string;
      at: string;
      durationMs: number | null;
      attempts: number;
      tool: string;
      args: unknown;
      result: ToolResult | null;
      failure: string | null;
    }
  | { kind: 'signal' | 'update'; at: string; name: string; payload: unknown }
  | { kind: 'finished'; at: string; status: string; result: AgentRunResult | null; failure: string | null };

export interface Transcript {
  workflowId: string;
  runId: string;
  entries: TranscriptEntry[];
}

/**
 * The transcript of a run, following its continue-as-new chain (long runs, handoffs) back to the
 * first execution, so the whole conversation reads as one.
 */
export async function buildTranscript(client: Client, workflowId: string, runId?: string): Promise<Transcript> {
  const description = await client.workflow.getHandle(workflowId, runId).describe();
  const chain: HistoryEvent[][] = [];
  let current: string | undefined = description.runId;
  while (current && chain.length < 100) {
    const fetched: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, current).fetchHistory();
    // Encrypted payloads (AGENT_PAYLOAD_KEYS) are decoded with the client's codecs first.
    const history = await decodeHistoryPayloads(fetched, client.options.loadedDataConverter.payloadCodecs);
    const events: HistoryEvent[] = history.events ?? [];
    chain.unshift(events);
    current = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return { workflowId, runId: description.runId, entries: chain.flatMap((events) => transcriptFromEvents(events)) };
}

/** Pure: history events → transcript entries, in the order things happened. */
export function transcriptFromEvents(events: HistoryEvent[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const activities = new Map<string, Extract<TranscriptEntry, { kind: 'model' | 'tool' }>>();
  const scheduledAt = new Map<string, number>();
  for (const event of events) {
    const at = eventTime(event);
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = decode<AgentRunInput>(started.input?.payloads?.[0]);
      if (input?.config) entries.push({ kind: 'started', at: iso(at), agent: input.config.name, model: input.config.model, task: input.task, continued: Boolean(input.carried) });
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const id = String(event.eventId);
      const activityId = scheduled.activityId ?? '';
      scheduledAt.set(id, at);
      const type = scheduled.activityType?.name;
      if (type === 'modelStep' || type === 'compactConversation') {
        const input = decode<ModelStepInput>(scheduled.input?.payloads?.[0]);
        const entry = { kind: 'model' as const, step: input?.step ?? 0, activityId, at: iso(at), durationMs: null, attempts: 1, model: input?.model ?? '', text: null, toolCalls: [], failure: null };
        activities.set(id, entry);
        entries.push(entry);
      } else if (type === 'runTool') {
        const input = decode<RunToolInput>(scheduled.input?.payloads?.[0]);
        const entry = { kind: 'tool' as const, step: input?.step ?? 0, activityId, at: iso(at), durationMs: null, attempts: 1, tool: input?.call.name ?? '', args: input?.call.args ?? null, result: null, failure: null };
        activities.set(id, entry);
        entries.push(entry);
      }
      continue;
    }
    const activityStarted = event.activityTaskStartedEventAttributes;
    if (activityStarted) {
      const entry = activities.get(String(activityStarted.scheduledEventId));
      if (entry) entry.attempts = activityStarted.attempt ?? 1;
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const key = String(completed.scheduledEventId);
      const entry = activities.get(key);
      if (!entry) continue;
      entry.durationMs = at - (scheduledAt.get(key) ?? at);
      if (entry.kind === 'model') {
        const result = decode<ModelStepResult>(completed.result?.payloads?.[0]);
        entry.text = result?.message.content || null;
        entry.toolCalls = result?.message.toolCalls ?? [];
      } else {
        entry.result = decode<ToolResult>(completed.result?.payloads?.[0]);
      }
      continue;
    }
    const failed = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    if (failed) {
      const key = String(failed.scheduledEventId);
      const entry = activities.get(key);
      if (!entry) continue;
      entry.durationMs = at - (scheduledAt.get(key) ?? at);
      entry.failure = failed.failure?.message ?? 'failed';
      continue;
    }
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (signaled) {
      entries.push({ kind: 'signal', at: iso(at), name: signaled.signalName ?? '', payload: decode(signaled.input?.payloads?.[0]) });
      continue;
    }
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (update) {
      entries.push({ kind: 'update', at: iso(at), name: update.name ?? '', payload: decode(update.args?.payloads?.[0]) });
      continue;
    }
    const finished = finishedStatus(event);
    if (finished) entries.push({ kind: 'finished', at: iso(at), ...finished });
  }
  return entries;
}

function finishedStatus(event: HistoryEvent): { status: string; result: AgentRunResult | null; failure: string | null } | null {
  if (event.workflowExecutionCompletedEventAttributes) {
    return { status: 'completed', result: decode<AgentRunResult>(event.workflowExecutionCompletedEventAttributes.result?.payloads?.[0]), failure: null };
  }
  if (event.workflowExecutionFailedEventAttributes) {
    return { status: 'failed', result: null, failure: event.workflowExecutionFailedEventAttributes.failure?.message ?? 'failed' };
  }
  if (event.workflowExecutionTimedOutEventAttributes) return { status: 'timed out', result: null, failure: null };
  if (event.workflowExecutionCanceledEventAttributes) return { status: 'cancelled', result: null, failure: null };
  if (event.workflowExecutionTerminatedEventAttributes) {
    return { status: 'terminated', result: null, failure: event.workflowExecutionTerminatedEventAttributes.reason ?? null };
  }
  if (event.workflowExecutionContinuedAsNewEventAttributes) return { status: 'continued as new', result: null, failure: null };
  return null;
}

function decode<T>(payload: temporal.api.common.v1.IPayload | null | undefined): T | null {
  if (!payload) return null;
  try {
    return defaultPayloadConverter.fromPayload<T>(payload);
  } catch {
    return null;
  }
}

function eventTime(event: HistoryEvent): number {
  const time = event.eventTime;
  if (!time) return 0;
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** Renders a transcript for a terminal. */
export function renderTranscript(transcript: Transcript): string {
  const lines = [`Run ${transcript.workflowId} (${transcript.runId})`];
  for (const entry of transcript.entries) {
    const time = entry.at.slice(11, 23);
    switch (entry.kind) {
      case 'started':
        if (entry.continued) lines.push(`${time}  continued (new run): agent ${entry.agent}, model ${entry.model}`);
        else lines.push(`${time}  started: agent ${entry.agent}, model ${entry.model}`, `              task: ${entry.task}`);
        break;
      case 'model': {
        const retries = entry.attempts > 1 ? `, ${entry.attempts} attempts` : '';
        lines.push(`${time}  ${stepLabel(entry.activityId)} · model ${entry.model} (${formatDuration(entry.durationMs)}${retries})`);
        if (entry.text) lines.push(indent(entry.text));
        for (const call of entry.toolCalls) lines.push(`              → ${call.name}(${compact(call.args)})`);
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      }
      case 'tool': {
        const retries = entry.attempts > 1 ? `, ${entry.attempts} attempts` : '';
        const mark = entry.failure || entry.result?.isError ? '✗' : '✓';
        lines.push(`${time}  ${stepLabel(entry.activityId)} · tool ${entry.tool}(${compact(entry.args)}) ${mark} (${formatDuration(entry.durationMs)}${retries})`);
        if (entry.result) {
          lines.push(indent(truncate(entry.result.content, 400)));
          const metadata = entry.result.metadata;
          const extras = [
            `status ${metadata.status}`,
            `approval ${metadata.approval_status}${metadata.approval_id ? ` ${metadata.approval_id}` : ''}`,
            ...(Object.keys(metadata.injected_args).length > 0 ? [`injected ${compact(metadata.injected_args)}`] : []),
            ...(metadata.offloaded_artifact_id ? [`artifact ${metadata.offloaded_artifact_id}`] : []),
          ];
          lines.push(`              [${extras.join(' · ')}]`);
        }
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      }
      case 'signal':
      case 'update':
        lines.push(`${time}  ${entry.kind} ${entry.name}: ${compact(entry.payload)}`);
        break;
      case 'finished':
        lines.push(`${time}  ${entry.status}${entry.result ? `: ${entry.result.stopReason} after ${entry.result.steps} steps` : ''}${entry.failure ? `: ${entry.failure}` : ''}`);
        for (const unapproved of entry.result?.toolResults.filter((result) => result.metadata.approval_status === 'rejected' || result.metadata.approval_status === 'timed_out') ?? []) {
          lines.push(`              step ${unapproved.step} · tool ${unapproved.toolName} not run: ${unapproved.metadata.approval_status} (${unapproved.metadata.approval_id})`);
        }
        if (entry.result?.output) lines.push(indent(entry.result.output));
        break;
    }
  }
  return lines.join('\n');
}

/** "step-3.tool-1.x" → "step 3"; "plan-1.model" → "plan 1" (the planner phase). */
function stepLabel(activityId: string): string {
  return (activityId.split('.')[0] ?? '').replace('-', ' ');
}

function formatDuration(ms: number | null): string {
  if (ms === null) return 'running';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function compact(value: unknown): string {
  return truncate(JSON.stringify(value ?? {}), 200);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `              ${line}`)
    .join('\n');
}
