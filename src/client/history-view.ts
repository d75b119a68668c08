import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { decodeHistoryPayloads } from './decode-history';
import type { temporal } from '@temporalio/proto';
import type { ToolCall } from '../shared/messages';
import type { SkillSnapshot } from '../shared/skill-types';
import type {
  AgentRunInput,
  AgentRunResult,
  CompactionInput,
  CompactionResult,
  McpToolCallInput,
  McpToolListing,
  ModelStepInput,
  ModelStepResult,
  RunToolInput,
  ToolResult,
} from '../shared/run-types';

/**
 * A readable transcript of an agent run, built from its Temporal history alone (so it works for
 * any run, finished or not, on any worker version): steps, tool calls with arguments and results,
 * timings and retries.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A tool call as the transcript shows it: who ran it, its arguments and what came back. */
export interface ToolEntry {
  kind: 'tool';
  step: number;
  /** The activity's id; for calls the workflow answers itself, `step-<n>.call-<id>`. */
  activityId: string;
  at: string;
  durationMs: number | null;
  attempts: number;
  tool: string;
  callId: string;
  /**
   * `activity`: the tool activity (`runTool`); `mcp`: an MCP server through `callMcpTool`;
   * `workflow`: answered by the workflow itself (handoffs, unknown tools, rejected or timed-out
   * approvals, sub-agent jobs and their refusals), so its result comes from the run's result.
   */
  via: 'activity' | 'mcp' | 'workflow';
  /** The MCP server, for `via: 'mcp'`. */
  server?: string;
  args: unknown;
  /** Null while the call runs, or when the history does not (yet) hold it (a run still going). */
  result: ToolResult | null;
  failure: string | null;
}

export type TranscriptEntry =
  | { kind: 'started'; at: string; agent: string; model: string; task: string; continued: boolean; handoffFrom?: string }
  | {
      kind: 'model';
      step: number;
      activityId: string;
      at: string;
      durationMs: number | null;
      attempts: number;
      model: string;
      text: string | null;
      toolCalls: ToolCall[];
      /** Why the answer failed `output_type` (the run asks the model for a correction). */
      outputError: string | null;
      /** Set when the prompt was over the `limit:` budget (no model was called). */
      overBudget: { promptTokens: number; limitTokens: number } | null;
      failure: string | null;
    }
  | {
      /** The compaction activity: the older turns summarised into a new conversation epoch. */
      kind: 'compaction';
      step: number;
      activityId: string;
      at: string;
      durationMs: number | null;
      attempts: number;
      model: string;
      /** How many messages after the task were summarised. */
      summarisedMessages: number;
      summary: string | null;
      failure: string | null;
    }
  | ToolEntry
  | { kind: 'mcp-tools'; at: string; tools: string[]; unavailable: Array<{ server: string; error: string }>; failure: string | null }
  | {
      /** The skill sources read by the worker (at the start, and after a gap in the watcher's batches). */
      kind: 'skills-loaded';
      at: string;
      sources: Array<{ source: string; skills: string[]; errors: Array<{ file: string; message: string }> }>;
      failure: string | null;
    }
  | {
      /** A sub-agent job: a child workflow of this run. */
      kind: 'child';
      at: string;
      workflowId: string;
      runId: string | null;
      agent: string;
      task: string;
      status: string;
      durationMs: number | null;
      result: AgentRunResult | null;
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

type ActivityEntry = Extract<TranscriptEntry, { kind: 'model' | 'compaction' | 'tool' | 'mcp-tools' | 'skills-loaded' }>;
type ChildEntry = Extract<TranscriptEntry, { kind: 'child' }>;

/**
 * Pure: history events → transcript entries, in the order things happened. Every activity of a
 * run has its entry (model steps, compactions, tools, MCP calls and listings), as does every
 * sub-agent child workflow; tool calls the workflow answers itself (no activity) are listed after
 * their step's other calls, with the result the run recorded for them (in the completed run's
 * result, or carried into the next run of a continue-as-new chain).
 */
export function transcriptFromEvents(events: HistoryEvent[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const activities = new Map<string, ActivityEntry>();
  const children = new Map<string, ChildEntry>();
  const scheduledAt = new Map<string, number>();
  const recorded = recordedToolResults(events);
  // Tool calls of the last model reply that no activity has taken yet (by "step:callId").
  let unclaimed = new Map<string, { step: number; call: ToolCall; at: number }>();
  const flushUnclaimed = (at: number) => {
    for (const [key, { step, call }] of unclaimed) {
      const result = recorded.get(key) ?? null;
      entries.push({
        kind: 'tool',
        step,
        activityId: `step-${step}.call-${call.id}`,
        // The workflow clock when the result was made, or (not recorded yet) when the step moved on.
        at: iso(result?.metadata.completed_at ?? at),
        durationMs: result ? result.metadata.execution_time_ms : null,
        attempts: 1,
        tool: call.name,
        callId: call.id,
        via: 'workflow',
        args: call.args,
        result,
        failure: null,
      });
    }
    unclaimed = new Map();
  };
  for (const event of events) {
    const at = eventTime(event);
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = decode<AgentRunInput>(started.input?.payloads?.[0]);
      if (input?.config) {
        const handoff = input.carried?.handoffs?.at(-1);
        entries.push({
          kind: 'started',
          at: iso(at),
          agent: input.config.name,
          model: input.config.model,
          task: input.task,
          continued: Boolean(input.carried),
          ...(handoff && handoff.to === input.config.name && handoff.step === input.carried?.step ? { handoffFrom: handoff.from } : {}),
        });
      }
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const id = String(event.eventId);
      const activityId = scheduled.activityId ?? '';
      const type = scheduled.activityType?.name;
      const payload = scheduled.input?.payloads?.[0];
      let entry: ActivityEntry | null = null;
      if (type === 'modelStep') {
        flushUnclaimed(at);
        const input = decode<ModelStepInput>(payload);
        entry = { kind: 'model', step: input?.step ?? 0, activityId, at: iso(at), durationMs: null, attempts: 1, model: input?.model ?? '', text: null, toolCalls: [], outputError: null, overBudget: null, failure: null };
      } else if (type === 'compactConversation') {
        flushUnclaimed(at);
        const input = decode<CompactionInput>(payload);
        const summarisedMessages = input ? Math.max(0, input.keepFrom - input.taskIndex - 1) : 0;
        entry = { kind: 'compaction', step: stepOf(activityId), activityId, at: iso(at), durationMs: null, attempts: 1, model: input?.model ?? '', summarisedMessages, summary: null, failure: null };
      } else if (type === 'runTool' || type === 'callMcpTool') {
        const input = decode<RunToolInput & Partial<McpToolCallInput>>(payload);
        const step = input?.step ?? 0;
        const callId = input?.call.id ?? '';
        unclaimed.delete(`${step}:${callId}`);
        entry = {
          kind: 'tool',
          step,
          activityId,
          at: iso(at),
          durationMs: null,
          attempts: 1,
          tool: input?.call.name ?? '',
          callId,
          via: type === 'callMcpTool' ? 'mcp' : 'activity',
          ...(input?.server ? { server: input.server.name } : {}),
          args: input?.call.args ?? null,
          result: null,
          failure: null,
        };
      } else if (type === 'listMcpTools') {
        entry = { kind: 'mcp-tools', at: iso(at), tools: [], unavailable: [], failure: null };
      } else if (type === 'loadSkillSources') {
        entry = { kind: 'skills-loaded', at: iso(at), sources: [], failure: null };
      }
      if (entry) {
        scheduledAt.set(id, at);
        activities.set(id, entry);
        entries.push(entry);
      }
      continue;
    }
    const activityStarted = event.activityTaskStartedEventAttributes;
    if (activityStarted) {
      const entry = activities.get(String(activityStarted.scheduledEventId));
      if (entry && 'attempts' in entry) entry.attempts = activityStarted.attempt ?? 1;
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const key = String(completed.scheduledEventId);
      const entry = activities.get(key);
      if (!entry) continue;
      const payload = completed.result?.payloads?.[0];
      if ('durationMs' in entry) entry.durationMs = at - (scheduledAt.get(key) ?? at);
      if (entry.kind === 'model') {
        const result = decode<ModelStepResult>(payload);
        entry.text = result?.message?.content || null;
        entry.toolCalls = result?.message?.toolCalls ?? [];
        entry.outputError = result?.outputError ?? null;
        entry.overBudget = result?.overBudget ?? null;
        for (const call of entry.toolCalls) unclaimed.set(`${entry.step}:${call.id}`, { step: entry.step, call, at });
      } else if (entry.kind === 'compaction') {
        entry.summary = decode<CompactionResult>(payload)?.summary ?? null;
      } else if (entry.kind === 'mcp-tools') {
        const listing = decode<McpToolListing>(payload);
        entry.tools = listing?.tools.map((tool) => tool.name) ?? [];
        entry.unavailable = listing?.unavailable ?? [];
      } else if (entry.kind === 'skills-loaded') {
        const snapshots = decode<SkillSnapshot[]>(payload) ?? [];
        entry.sources = snapshots.map((snapshot) => ({ source: snapshot.source, skills: snapshot.skills.map((skill) => skill.name), errors: snapshot.errors }));
      } else {
        entry.result = decode<ToolResult>(payload);
      }
      continue;
    }
    const failed = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    if (failed) {
      const key = String(failed.scheduledEventId);
      const entry = activities.get(key);
      if (!entry) continue;
      if ('durationMs' in entry) entry.durationMs = at - (scheduledAt.get(key) ?? at);
      entry.failure = failureText(failed.failure);
      continue;
    }
    const childInitiated = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (childInitiated) {
      const input = decode<AgentRunInput>(childInitiated.input?.payloads?.[0]);
      const entry: ChildEntry = {
        kind: 'child',
        at: iso(at),
        workflowId: childInitiated.workflowId ?? '',
        runId: null,
        agent: input?.config?.name ?? '',
        task: input?.task ?? '',
        status: 'starting',
        durationMs: null,
        result: null,
        failure: null,
      };
      children.set(String(event.eventId), entry);
      scheduledAt.set(`child-${event.eventId}`, at);
      entries.push(entry);
      continue;
    }
    const childEnded = childOutcome(event);
    if (childEnded) {
      const entry = children.get(childEnded.initiatedEventId);
      if (!entry) continue;
      if (childEnded.runId) entry.runId = childEnded.runId;
      entry.status = childEnded.status;
      if (childEnded.status !== 'running') entry.durationMs = at - (scheduledAt.get(`child-${childEnded.initiatedEventId}`) ?? at);
      entry.result = childEnded.result;
      entry.failure = childEnded.failure;
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
    if (finished) {
      flushUnclaimed(at);
      entries.push({ kind: 'finished', at: iso(at), ...finished });
    }
  }
  const last = events.at(-1);
  if (last) flushUnclaimed(eventTime(last));
  return entries;
}

/**
 * Tool results the run recorded, by "step:callId": the completed run's `toolResults`, or those it
 * carried into the next run when it continued as new (its own tool calls included).
 */
function recordedToolResults(events: HistoryEvent[]): Map<string, ToolResult> {
  const results = new Map<string, ToolResult>();
  for (const event of events) {
    const completed = event.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    const continued = event.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0];
    const list = completed ? decode<AgentRunResult>(completed)?.toolResults : continued ? decode<AgentRunInput>(continued)?.carried?.toolResults : undefined;
    for (const result of list ?? []) results.set(`${result.step}:${result.callId}`, result);
  }
  return results;
}

function childOutcome(event: HistoryEvent): { initiatedEventId: string; runId: string | null; status: string; result: AgentRunResult | null; failure: string | null } | null {
  const startedChild = event.childWorkflowExecutionStartedEventAttributes;
  if (startedChild) return { initiatedEventId: String(startedChild.initiatedEventId), runId: startedChild.workflowExecution?.runId ?? null, status: 'running', result: null, failure: null };
  const completedChild = event.childWorkflowExecutionCompletedEventAttributes;
  if (completedChild) {
    return { initiatedEventId: String(completedChild.initiatedEventId), runId: completedChild.workflowExecution?.runId ?? null, status: 'completed', result: decode<AgentRunResult>(completedChild.result?.payloads?.[0]), failure: null };
  }
  const failedChild = event.childWorkflowExecutionFailedEventAttributes;
  if (failedChild) return { initiatedEventId: String(failedChild.initiatedEventId), runId: failedChild.workflowExecution?.runId ?? null, status: 'failed', result: null, failure: failureText(failedChild.failure) };
  const other =
    (event.childWorkflowExecutionTimedOutEventAttributes && { ids: event.childWorkflowExecutionTimedOutEventAttributes, status: 'timed out' }) ||
    (event.childWorkflowExecutionCanceledEventAttributes && { ids: event.childWorkflowExecutionCanceledEventAttributes, status: 'cancelled' }) ||
    (event.childWorkflowExecutionTerminatedEventAttributes && { ids: event.childWorkflowExecutionTerminatedEventAttributes, status: 'terminated' });
  if (other) return { initiatedEventId: String(other.ids.initiatedEventId), runId: other.ids.workflowExecution?.runId ?? null, status: other.status, result: null, failure: null };
  const notStarted = event.startChildWorkflowExecutionFailedEventAttributes;
  if (notStarted) return { initiatedEventId: String(notStarted.initiatedEventId), runId: null, status: 'not started', result: null, failure: String(notStarted.cause ?? 'failed') };
  return null;
}

/** The failure's message with its causes ("activity failed: tool exploded"), without stack traces. */
function failureText(failure: temporal.api.failure.v1.IFailure | null | undefined): string {
  const parts: string[] = [];
  for (let current = failure; current && parts.length < 4; current = current.cause) {
    if (current.message && !parts.includes(current.message)) parts.push(current.message);
  }
  return parts.join(': ') || 'failed';
}

/** "step-3.compaction" → 3. */
function stepOf(activityId: string): number {
  return Number(/^step-(\d+)/.exec(activityId)?.[1] ?? 0);
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
        if (entry.continued) lines.push(`${time}  continued (new run): agent ${entry.agent}, model ${entry.model}${entry.handoffFrom ? ` (handoff from ${entry.handoffFrom})` : ''}`);
        else lines.push(`${time}  started: agent ${entry.agent}, model ${entry.model}`, `              task: ${entry.task}`);
        break;
      case 'model': {
        lines.push(`${time}  ${stepLabel(entry.activityId)} · model ${entry.model} (${formatDuration(entry.durationMs)}${retries(entry.attempts)})`);
        if (entry.overBudget) lines.push(`              over the budget: prompt ${entry.overBudget.promptTokens} tokens, limit ${entry.overBudget.limitTokens} (no model call)`);
        if (entry.text) lines.push(indent(entry.text));
        for (const call of entry.toolCalls) lines.push(`              → ${call.name}(${compact(call.args)})`);
        if (entry.outputError) lines.push(`              ✗ output rejected (output_type): ${entry.outputError}; the model is asked for a correction`);
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      }
      case 'compaction':
        lines.push(`${time}  ${stepLabel(entry.activityId)} · compaction of ${entry.summarisedMessages} messages · model ${entry.model} (${formatDuration(entry.durationMs)}${retries(entry.attempts)})`);
        if (entry.summary) lines.push(indent(`summary: ${truncate(entry.summary, 400)}`));
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      case 'tool':
        lines.push(...renderTool(time, entry));
        break;
      case 'mcp-tools':
        lines.push(`${time}  MCP tools listed: ${entry.tools.join(', ') || 'none'}`);
        for (const server of entry.unavailable) lines.push(`              ✗ server ${server.server} unavailable: ${server.error}`);
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      case 'skills-loaded':
        lines.push(`${time}  skills loaded${entry.sources.length === 0 ? ': none' : ''}`);
        for (const source of entry.sources) {
          lines.push(`              ${source.source}: ${source.skills.join(', ') || 'no skills'}`);
          for (const error of source.errors) lines.push(`              ✗ ${error.file}: ${error.message}`);
        }
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      case 'child': {
        const duration = entry.durationMs === null ? '' : ` (${formatDuration(entry.durationMs)})`;
        lines.push(`${time}  sub-agent ${entry.workflowId}${entry.runId ? ` (${entry.runId})` : ''} · agent ${entry.agent}: ${entry.status}${duration}`);
        lines.push(indent(`task: ${truncate(entry.task, 200)}`));
        if (entry.result) lines.push(indent(`${entry.result.stopReason} after ${entry.result.steps} steps: ${truncate(entry.result.output, 400)}`));
        if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
        break;
      }
      case 'signal':
      case 'update':
        lines.push(`${time}  ${entry.kind} ${entry.name}: ${compact(entry.payload)}`);
        break;
      case 'finished':
        lines.push(`${time}  ${entry.status}${entry.result ? `: ${entry.result.stopReason} after ${entry.result.steps} steps` : ''}${entry.failure ? `: ${entry.failure}` : ''}`);
        if (entry.result?.stopDetail) lines.push(indent(entry.result.stopDetail));
        if (entry.result?.output) lines.push(indent(entry.result.output));
        break;
    }
  }
  return lines.join('\n');
}

function renderTool(time: string, entry: ToolEntry): string[] {
  const mark = entry.failure || entry.result?.isError ? '✗' : entry.result || entry.via !== 'workflow' ? '✓' : '·';
  const where = entry.via === 'mcp' ? ` · MCP ${entry.server ?? ''}` : entry.via === 'workflow' ? ' · by the workflow' : '';
  const label = entry.via === 'workflow' ? `step ${entry.step}` : stepLabel(entry.activityId);
  const duration = entry.via === 'workflow' && !entry.result ? '' : ` (${formatDuration(entry.durationMs)}${retries(entry.attempts)})`;
  const lines = [`${time}  ${label} · tool ${entry.tool}(${compact(entry.args)})${where} ${mark}${duration}`];
  const result = entry.result;
  if (result) {
    lines.push(indent(truncate(result.content, 400)));
    for (const note of result.progress ?? []) {
      lines.push(`              progress ${note.progress}${note.total !== undefined ? `/${note.total}` : ''}${note.message ? `: ${note.message}` : ''}`);
    }
    const metadata = result.metadata;
    const extras = [
      `status ${metadata.status}`,
      ...(result.errorCode ? [`error ${result.errorCode}`] : []),
      `approval ${metadata.approval_status}${metadata.approval_id ? ` ${metadata.approval_id}` : ''}`,
      ...(Object.keys(metadata.injected_args).length > 0 ? [`injected ${compact(metadata.injected_args)}`] : []),
      ...(metadata.offloaded_artifact_id ? [`artifact ${metadata.offloaded_artifact_id}`] : []),
    ];
    lines.push(`              [${extras.join(' · ')}]`);
  } else if (entry.via === 'workflow') {
    lines.push('              (result not in the history yet: `events` or `status` show it while the run goes on)');
  }
  if (entry.failure) lines.push(`              ✗ ${entry.failure}`);
  return lines;
}

function retries(attempts: number): string {
  return attempts > 1 ? `, ${attempts} attempts` : '';
}

/** "step-3.tool-1.x" → "step 3"; "plan-1.model" → "plan 1" (the planner phase). */
function stepLabel(activityId: string): string {
  const [phase = '', kind = ''] = activityId.split('.');
  return `${phase.replace('-', ' ')}${kind === 'model-after-compaction' ? ' (after compaction)' : ''}`;
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
