// Builds a run's transcript from its history events, one event at a time.
import type { temporal } from '@temporalio/proto';
import type { ToolCall } from '../protocol/messages';
import type { AgentRunWorkflowInput, ResolvedRunInput, ToolResult } from '../protocol/run-types';
import { agentVersionLabel } from '../protocol/agent-reference';
import { startedRunInput } from './started-input';
import {
  activityReaders,
  type ActivityEntry,
  type ActivityRead,
  type ActivityReader,
  type ReadActivityType,
  type TranscriptContext,
} from './activity-readers';
import type { TranscriptEntry } from './history-entries';
import { callDecidersOf } from '../protocol/tool-result-metadata';
import { childOutcome, decode, eventTime, failureText, finishedStatus, iso, recordedToolResults } from './history-events';
import { ignoredSignals } from './ignored-signals';
import { skillBatchOutcomes, type SkillBatchOutcome } from './skill-batch-outcomes';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type ChildEntry = Extract<TranscriptEntry, { kind: 'child' }>;

/** A scheduled activity the transcript shows, by its scheduled event's id. */
interface OpenActivity extends ActivityRead {
  scheduledAt: number;
}

/**
 * Events in, entries out, in the order things happened. Activities are read by their type's reader
 * (`activityReaders`); child workflows, signals, updates and the run's start and end here. Tool
 * calls that no activity takes (the workflow answers them itself) are listed after their step's
 * other calls, with the result the run recorded for them (in the completed run's result, or carried
 * into the next execution of a continue-as-new chain).
 */
export class TranscriptBuilder {
  private readonly entries: TranscriptEntry[] = [];
  private readonly activities = new Map<string, OpenActivity>();
  private readonly children = new Map<string, { entry: ChildEntry; initiatedAt: number }>();
  /** The last model reply's tool calls that no activity has taken yet, by "step:callId". */
  private unclaimed = new Map<string, { step: number; call: ToolCall }>();
  private readonly recorded: Map<string, ToolResult>;
  /** Signals the run ignored, by event id, with the reason. */
  private readonly ignored: Map<string, string>;
  /** What the run did with each valid skills batch, by event id. */
  private readonly skillBatches: Map<string, SkillBatchOutcome>;
  private lastEventAt: number | null = null;
  /** The execution's input with its config (a named run's from its resolved definition). */
  private readonly startInput: ResolvedRunInput | null;

  constructor(events: HistoryEvent[]) {
    this.startInput = startedRunInput(events);
    this.recorded = recordedToolResults(events);
    this.ignored = ignoredSignals(events);
    this.skillBatches = skillBatchOutcomes(events);
  }

  /** Reads one event (in history order). */
  add(event: HistoryEvent): void {
    const at = eventTime(event);
    this.lastEventAt = at;
    if (event.workflowExecutionStartedEventAttributes) this.started(event.workflowExecutionStartedEventAttributes, at);
    else if (event.activityTaskScheduledEventAttributes)
      this.activityScheduled(String(event.eventId), event.activityTaskScheduledEventAttributes, at);
    else if (event.activityTaskStartedEventAttributes) this.activityStarted(event.activityTaskStartedEventAttributes);
    else if (event.activityTaskCompletedEventAttributes) this.activityCompleted(event.activityTaskCompletedEventAttributes, at);
    else if (event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes) {
      this.activityFailed((event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes)!, at);
    } else if (event.startChildWorkflowExecutionInitiatedEventAttributes)
      this.childInitiated(String(event.eventId), event.startChildWorkflowExecutionInitiatedEventAttributes, at);
    else this.other(event, at);
  }

  /** The entries so far, without listing unclaimed calls yet (a thread's reader tags the new ones with their turn). */
  get current(): readonly TranscriptEntry[] {
    return this.entries;
  }

  /** The entries so far; calls still unclaimed at the last event are listed as the workflow's own. */
  finish(): TranscriptEntry[] {
    if (this.lastEventAt !== null) this.flushUnclaimedCalls(this.lastEventAt);
    this.addDeciders();
    return this.entries;
  }

  /**
   * Who decided about a call that a tool activity ran (a hook, a tool-policy rule) is added by the
   * workflow after the activity: it is in the result the run recorded, not in the activity's.
   */
  private addDeciders(): void {
    for (const entry of this.entries) {
      if (entry.kind !== 'tool' || entry.via === 'workflow' || !entry.result) continue;
      const recorded = this.recorded.get(`${entry.step}:${entry.callId}`);
      const deciders = recorded ? callDecidersOf(recorded.metadata) : [];
      if (deciders.length > 0) entry.result = { ...entry.result, metadata: { ...entry.result.metadata, decided_by: deciders } };
    }
  }

  private started(started: temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes, at: number): void {
    const input = this.startInput ?? decode<ResolvedRunInput>(started.input?.payloads?.[0]);
    if (!input?.config) {
      // A named run that failed before its agent was resolved: its name is all there is.
      const named = decode<AgentRunWorkflowInput>(started.input?.payloads?.[0]);
      if (named?.agent) this.entries.push({ kind: 'started', at: iso(at), agent: named.agent.name, model: '', task: named.task, continued: false });
      return;
    }
    const handoff = input.carried?.handoffs?.at(-1);
    this.entries.push({
      kind: 'started',
      at: iso(at),
      agent: input.config.name,
      model: input.config.model,
      ...(input.agentVersion ? { agentVersion: agentVersionLabel(input.agentVersion) } : {}),
      ...(typeof input.task === 'string' ? { task: input.task } : {}),
      continued: Boolean(input.carried),
      ...(input.fork
        ? {
            forkOf: {
              workflowId: input.fork.workflowId,
              runId: input.fork.runId,
              step: input.fork.step,
              ...(input.fork.edits?.length ? { edits: input.fork.edits } : {}),
            },
          }
        : {}),
      ...(handoff && handoff.to === input.config.name && handoff.step === input.carried?.step ? { handoffFrom: handoff.from } : {}),
    });
  }

  private activityScheduled(eventId: string, scheduled: temporal.api.history.v1.IActivityTaskScheduledEventAttributes, at: number): void {
    const type = scheduled.activityType?.name ?? '';
    const reader: ActivityReader = Object.hasOwn(activityReaders, type) ? activityReaders[type as ReadActivityType] : null;
    if (!reader) return;
    const read = reader(scheduled.input?.payloads?.[0], this.context(at, scheduled.activityId ?? ''));
    this.activities.set(eventId, { ...read, scheduledAt: at });
    this.entries.push(read.entry);
  }

  private activityStarted(started: temporal.api.history.v1.IActivityTaskStartedEventAttributes): void {
    const entry = this.activities.get(String(started.scheduledEventId))?.entry;
    if (entry && 'attempts' in entry) entry.attempts = started.attempt ?? 1;
  }

  private activityCompleted(completed: temporal.api.history.v1.IActivityTaskCompletedEventAttributes, at: number): void {
    const activity = this.activities.get(String(completed.scheduledEventId));
    if (!activity) return;
    if ('durationMs' in activity.entry) activity.entry.durationMs = at - activity.scheduledAt;
    activity.completed(completed.result?.payloads?.[0], this.context(at, ''));
  }

  private activityFailed(
    failed: temporal.api.history.v1.IActivityTaskFailedEventAttributes | temporal.api.history.v1.IActivityTaskTimedOutEventAttributes,
    at: number,
  ): void {
    const activity = this.activities.get(String(failed.scheduledEventId));
    if (!activity) return;
    if ('durationMs' in activity.entry) activity.entry.durationMs = at - activity.scheduledAt;
    activity.entry.failure = failureText(failed.failure);
  }

  private childInitiated(eventId: string, initiated: temporal.api.history.v1.IStartChildWorkflowExecutionInitiatedEventAttributes, at: number): void {
    const input = decode<AgentRunWorkflowInput>(initiated.input?.payloads?.[0]);
    const entry: ChildEntry = {
      kind: 'child',
      at: iso(at),
      workflowId: initiated.workflowId ?? '',
      runId: null,
      agent: input?.config?.name ?? input?.agent?.name ?? '',
      task: input?.task ?? '',
      status: 'starting',
      durationMs: null,
      result: null,
      failure: null,
    };
    this.children.set(eventId, { entry, initiatedAt: at });
    this.entries.push(entry);
  }

  /** A child's progress, a signal, an accepted update, or the end of this execution. */
  private other(event: HistoryEvent, at: number): void {
    const childEnded = childOutcome(event);
    if (childEnded) {
      const child = this.children.get(childEnded.initiatedEventId);
      if (!child) return;
      const { entry } = child;
      if (childEnded.runId) entry.runId = childEnded.runId;
      entry.status = childEnded.status;
      if (childEnded.status !== 'running') entry.durationMs = at - child.initiatedAt;
      entry.result = childEnded.result;
      entry.failure = childEnded.failure;
      return;
    }
    const signaled = event.workflowExecutionSignaledEventAttributes;
    if (signaled) {
      const skills = this.skillBatches.get(String(event.eventId));
      const reason = this.ignored.get(String(event.eventId)) ?? (skills && !skills.applied ? skills.detail : undefined);
      this.entries.push({
        kind: 'signal',
        at: iso(at),
        name: signaled.signalName ?? '',
        payload: decode(signaled.input?.payloads?.[0]),
        ...(reason ? { ignored: reason } : {}),
        ...(skills?.applied ? { applied: skills.detail } : {}),
      });
      return;
    }
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (update) {
      this.entries.push({ kind: 'update', at: iso(at), name: update.name ?? '', payload: decode(update.args?.payloads?.[0]) });
      return;
    }
    const finished = finishedStatus(event);
    if (finished) {
      this.flushUnclaimedCalls(at);
      this.entries.push({ kind: 'finished', at: iso(at), ...finished });
    }
  }

  private context(at: number, activityId: string): TranscriptContext {
    return {
      at,
      activityId,
      flushUnclaimedCalls: () => this.flushUnclaimedCalls(at),
      awaitCalls: (step, calls) => {
        for (const call of calls) this.unclaimed.set(`${step}:${call.id}`, { step, call });
      },
      claimCall: (step, callId) => void this.unclaimed.delete(`${step}:${callId}`),
      removeEntry: (entry: ActivityEntry) => void this.entries.splice(this.entries.indexOf(entry), 1),
    };
  }

  /** Lists the unclaimed calls as the workflow's own, with the results the run recorded for them. */
  private flushUnclaimedCalls(at: number): void {
    for (const { step, call } of this.unclaimed.values()) {
      const result = this.recorded.get(`${step}:${call.id}`) ?? null;
      this.entries.push({
        kind: 'tool',
        step,
        activityId: `step-${step}.call-${call.id}`,
        // The workflow clock when the result was made, or (not recorded yet) when the step moved on;
        // never before the entry above it: that clock is the start of the workflow task, earlier
        // than the update the same task accepted (and which rejected the call, say).
        at: iso(Math.max(result?.metadata.completed_at ?? at, Date.parse(this.entries.at(-1)?.at ?? '') || 0)),
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
    this.unclaimed = new Map();
  }
}
