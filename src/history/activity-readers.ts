// How each activity of an agent run reads back from its history: the entry it makes and what its result adds.
import type { temporal } from '@temporalio/proto';
import type { ToolCall, Usage } from '../protocol/messages';
import type { SkillSnapshot } from '../protocol/skill-types';
import type {
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
import type { ToolEntry, TranscriptEntry } from './history-entries';
import { decode, iso, stepOf } from './history-events';

type Payload = temporal.api.common.v1.IPayload | null | undefined;

/** The entries an activity makes. */
export type ActivityEntry = Extract<TranscriptEntry, { kind: 'model' | 'compaction' | 'tool' | 'mcp-tools' | 'skills-loaded' }>;
type ModelEntry = Extract<TranscriptEntry, { kind: 'model' }>;
type CompactionEntry = Extract<TranscriptEntry, { kind: 'compaction' }>;

/**
 * What a reader may do beyond its own entry: the tool calls of a model reply wait, by
 * "step:callId", until an activity takes them; those none takes are the workflow's own (the
 * builder lists them after their step).
 */
export interface TranscriptContext {
  /** When the event being read happened (epoch ms). */
  at: number;
  /** The scheduled activity's id (`step-3.call-call_1`). */
  activityId: string;
  /** Lists the calls no activity took, as the workflow's own: a new step has begun. */
  flushUnclaimedCalls(): void;
  /** A model reply's calls, waiting for the activities that run them. */
  awaitCalls(step: number, calls: ToolCall[]): void;
  /** An activity took this call: it is not the workflow's own. */
  claimCall(step: number, callId: string): void;
  /** Takes an entry back out of the transcript. */
  removeEntry(entry: ActivityEntry): void;
}

/** An activity read from its scheduling: its entry, and how its result fills that entry. */
export interface ActivityRead {
  entry: ActivityEntry;
  completed(result: Payload, context: TranscriptContext): void;
}

/** Reads one activity type's scheduling (its input payload); null for activities the transcript does not show. */
export type ActivityReader = ((input: Payload, context: TranscriptContext) => ActivityRead) | null;

/**
 * One reader per activity of the agent workflows, keyed by activity type: an activity added to
 * `createActivities` does not compile until it has its line here (a reader, or null with the
 * reason it is not shown). The activities' factory (src/activities/index.ts) holds that check,
 * so this module needs nothing of the activities (which read histories through it).
 */
export const activityReaders = {
  modelStep: (payload, context) => {
    context.flushUnclaimedCalls();
    const input = decode<ModelStepInput>(payload);
    const entry: ModelEntry = {
      kind: 'model',
      step: input?.step ?? 0,
      activityId: context.activityId,
      at: iso(context.at),
      durationMs: null,
      attempts: 1,
      model: input?.model ?? '',
      conversation: input?.conversation ? namedConversation(input.conversation) : null,
      text: null,
      toolCalls: [],
      outputError: null,
      overBudget: null,
      failure: null,
      ...(input?.loopNudge ? { loopNudge: input.loopNudge } : {}),
    };
    return {
      entry,
      completed: (result, completion) => {
        const reply = decode<ModelStepResult>(result);
        entry.text = reply?.message?.content || null;
        entry.toolCalls = reply?.message?.toolCalls ?? [];
        entry.outputError = reply?.outputError ?? null;
        entry.overBudget = reply?.overBudget ?? null;
        if (reply?.overCostLimit) entry.overCostLimit = reply.overCostLimit;
        if (reply?.usage && !reply.overBudget && !reply.overCostLimit) Object.assign(entry, callCost(reply));
        completion.awaitCalls(entry.step, entry.toolCalls);
      },
    };
  },
  compactConversation: (payload, context) => {
    context.flushUnclaimedCalls();
    const input = decode<CompactionInput>(payload);
    const entry: CompactionEntry = {
      kind: 'compaction',
      step: stepOf(context.activityId),
      activityId: context.activityId,
      at: iso(context.at),
      durationMs: null,
      attempts: 1,
      model: input?.model ?? '',
      summarisedMessages: input ? Math.max(0, input.keepFrom - input.taskIndex - 1) : 0,
      summary: null,
      failure: null,
    };
    return {
      entry,
      completed: (result) => {
        const compaction = decode<CompactionResult>(result);
        entry.summary = compaction?.summary ?? null;
        if (compaction?.usage) Object.assign(entry, callCost(compaction));
      },
    };
  },
  runTool: (payload, context) => toolRead('activity', payload, context),
  callMcpTool: (payload, context) => toolRead('mcp', payload, context),
  // A replayed call is claimed only once a recorded result came back; an unrecorded one is
  // answered by the workflow (an error, or the live tool), so its entry goes.
  replayToolCall: (payload, context) => {
    const read = toolRead('recorded', payload, context);
    const entry = read.entry as ToolEntry;
    return {
      entry,
      completed: (result, completion) => {
        read.completed(result, completion);
        if (entry.result) completion.claimCall(entry.step, entry.callId);
        else completion.removeEntry(entry);
      },
    };
  },
  listMcpTools: (_payload, context) => {
    const entry: ActivityEntry = { kind: 'mcp-tools', at: iso(context.at), tools: [], unavailable: [], failure: null };
    return {
      entry,
      completed: (result) => {
        const listing = decode<McpToolListing>(result);
        entry.tools = listing?.tools.map((tool) => tool.name) ?? [];
        entry.unavailable = listing?.unavailable ?? [];
      },
    };
  },
  loadSkillSources: (_payload, context) => {
    const entry: ActivityEntry = { kind: 'skills-loaded', at: iso(context.at), sources: [], failure: null };
    return {
      entry,
      completed: (result) => {
        const snapshots = decode<SkillSnapshot[]>(result) ?? [];
        entry.sources = snapshots.map((snapshot) => ({
          source: snapshot.source,
          skills: snapshot.skills.map((skill) => skill.name),
          errors: snapshot.errors,
        }));
      },
    };
  },
  // Plumbing, not steps of the conversation: a continuation's snapshot, a fork's origin read
  // (the started entry names the origin), the workers' tool listing (its own workflow).
  saveConversation: null,
  readCarriedToolResults: null,
  storeTurnToolResults: null,
  readTurnToolResults: null,
  loadForkOrigin: null,
  listWorkerTools: null,
  listWorkerAgents: null,
  // A schedule's post into a thread: the thread's own history has the message as its turn.
  postThreadMessage: null,
  // An A2A task's push deliveries: their own workflow (a2aPushDelivery), not a step of the run.
  deliverA2aPush: null,
  // A local activity (a marker): the definition a named run resolved; the transcript reads it from the run's start (history/started-input.ts).
  resolveAgent: null,
  // A local activity (a marker): the verdict on a decision's proof; the run's events say what it decided (approval-decided / approval-refused).
  verifyDecision: null,
  // A local activity of users' workflows (runAgent): a marker, not an activity of the run.
  checkSearchAttributes: null,
  // Worker hooks told about the run's own moments: they add nothing to the conversation (what
  // they failed is in the run's events, `hook-failed`).
  runLifecycleHooks: null,
  // The instructions a provider gave: the system prompt, not a turn of the conversation (the
  // run's events say where the instructions came from, `instructions-resolved`).
  resolveInstructions: null,
  // A model call asking its provider limiter for a time: the wait, not a turn (the model step follows).
  reserveModelCall: null,
  // A run asking for a concurrency slot, and the slots workflow checking its holders: waits, not turns.
  requestConcurrencySlot: null,
  checkSlotHolders: null,
} satisfies Record<string, ActivityReader>;

/** The activity types the transcript has a line for (a reader, or null): every activity of `createActivities`. */
export type ReadActivityType = keyof typeof activityReaders;

/** A tool call run by an activity (`runTool`, an MCP server's `callMcpTool`, or a recorded result). */
function toolRead(via: 'activity' | 'mcp' | 'recorded', payload: Payload, context: TranscriptContext): ActivityRead {
  const input = decode<RunToolInput & Partial<McpToolCallInput>>(payload);
  const step = input?.step ?? 0;
  const callId = input?.call.id ?? '';
  if (via !== 'recorded') context.claimCall(step, callId);
  const entry: ToolEntry = {
    kind: 'tool',
    step,
    activityId: context.activityId,
    at: iso(context.at),
    durationMs: null,
    attempts: 1,
    tool: input?.call.name ?? '',
    callId,
    via,
    ...(input?.server ? { server: input.server.name } : {}),
    args: input?.call.args ?? null,
    result: null,
    failure: null,
  };
  return { entry, completed: (result) => void (entry.result = decode<ToolResult>(result)) };
}

/** Which conversation a step was given, without the messages and system prompt its input may also carry. */
function namedConversation({ thread, epoch, count, revision }: ConversationRef): ConversationRef {
  return { ...(thread ? { thread } : {}), epoch, count, ...(revision !== undefined ? { revision } : {}) };
}

/** A call's tokens and cost for its entry (the cost only when the worker priced calls). */
function callCost(result: { usage: Usage; costUsd?: number | null }): { usage: Usage; costUsd?: number | null } {
  return { usage: result.usage, ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}) };
}
