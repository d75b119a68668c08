import type { Client } from '@temporalio/client';
import { decodeHistoryPayloads } from './decode-history';
import type { temporal } from '@temporalio/proto';
import type { ToolCall } from '../protocol/messages';
import type { SkillSnapshot } from '../protocol/skill-types';
import type {
  AgentRunWorkflowInput,
  CompactionInput,
  CompactionResult,
  ConversationRef,
  McpToolCallInput,
  McpToolListing,
  ModelStepInput,
  ModelStepResult,
  RunToolInput,
  ToolResult,
} from '../protocol/run-types';
import type { Transcript, TranscriptEntry } from './history-entries';
import { childOutcome, decode, eventTime, failureText, finishedStatus, iso, recordedToolResults, stepOf } from './history-events';

/**
 * A readable transcript of an agent run, built from its Temporal history alone (so it works for
 * any run, finished or not, on any worker version): steps, tool calls with arguments and results,
 * timings and retries.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;


/**
 * The transcript of a run, following its continue-as-new chain (long runs, handoffs) back to the
 * first execution, so the whole conversation reads as one.
 */
export async function buildTranscript(client: Client, workflowId: string, runId?: string): Promise<Transcript> {
  const chain = await fetchRunChain(client, workflowId, runId);
  return { workflowId, runId: chain.at(-1)?.runId ?? '', entries: chain.flatMap((execution) => transcriptFromEvents(execution.events)) };
}

/** One execution of a run's continue-as-new chain: its run id and its (decoded) history events. */
export interface ChainExecution {
  runId: string;
  events: HistoryEvent[];
}

/**
 * The executions of a run's continue-as-new chain, first to last, ending at `runId` (default: the
 * latest), with payloads decoded by the client's codecs. `history`, `fork` and `eval` read runs
 * through it.
 */
export async function fetchRunChain(client: Client, workflowId: string, runId?: string): Promise<ChainExecution[]> {
  const description = await client.workflow.getHandle(workflowId, runId).describe();
  const chain: ChainExecution[] = [];
  let current: string | undefined = description.runId;
  while (current && chain.length < 100) {
    const fetched: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, current).fetchHistory();
    // Encrypted payloads (AGENT_PAYLOAD_KEYS) are decoded with the client's codecs first.
    const history = await decodeHistoryPayloads(fetched, client.options.loadedDataConverter.payloadCodecs);
    const events: HistoryEvent[] = history.events ?? [];
    chain.unshift({ runId: current, events });
    current = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return chain;
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
      const input = decode<AgentRunWorkflowInput>(started.input?.payloads?.[0]);
      if (input?.config) {
        const handoff = input.carried?.handoffs?.at(-1);
        entries.push({
          kind: 'started',
          at: iso(at),
          agent: input.config.name,
          model: input.config.model,
          task: input.task,
          continued: Boolean(input.carried),
          ...(input.fork ? { forkOf: { workflowId: input.fork.workflowId, runId: input.fork.runId, step: input.fork.step } } : {}),
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
        entry = { kind: 'model', step: input?.step ?? 0, activityId, at: iso(at), durationMs: null, attempts: 1, model: input?.model ?? '', conversation: input?.conversation ? namedConversation(input.conversation) : null, text: null, toolCalls: [], outputError: null, overBudget: null, failure: null };
      } else if (type === 'compactConversation') {
        flushUnclaimed(at);
        const input = decode<CompactionInput>(payload);
        const summarisedMessages = input ? Math.max(0, input.keepFrom - input.taskIndex - 1) : 0;
        entry = { kind: 'compaction', step: stepOf(activityId), activityId, at: iso(at), durationMs: null, attempts: 1, model: input?.model ?? '', summarisedMessages, summary: null, failure: null };
      } else if (type === 'runTool' || type === 'callMcpTool' || type === 'replayToolCall') {
        const input = decode<RunToolInput & Partial<McpToolCallInput>>(payload);
        const step = input?.step ?? 0;
        const callId = input?.call.id ?? '';
        // A replayed call is claimed only once a recorded result came back (an unrecorded one is answered otherwise).
        if (type !== 'replayToolCall') unclaimed.delete(`${step}:${callId}`);
        entry = {
          kind: 'tool',
          step,
          activityId,
          at: iso(at),
          durationMs: null,
          attempts: 1,
          tool: input?.call.name ?? '',
          callId,
          via: type === 'callMcpTool' ? 'mcp' : type === 'replayToolCall' ? 'recorded' : 'activity',
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
        if (entry.via === 'recorded') {
          if (entry.result) unclaimed.delete(`${entry.step}:${entry.callId}`);
          else entries.splice(entries.indexOf(entry), 1);
        }
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
      const input = decode<AgentRunWorkflowInput>(childInitiated.input?.payloads?.[0]);
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

// The entry types live in history-entries.ts, the human rendering in history-render.ts.
export type { ToolEntry, Transcript, TranscriptEntry } from './history-entries';
export { renderTranscript } from './history-render';

/** Which conversation a step was given, without the messages and system prompt its input may also carry. */
function namedConversation({ thread, epoch, count, revision }: ConversationRef): ConversationRef {
  return { ...(thread ? { thread } : {}), epoch, count, ...(revision !== undefined ? { revision } : {}) };
}
