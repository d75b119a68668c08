// A thread's turn or a whole run as one AG-UI run: the feed's items through the encoder, ended by the turn (or run) or by its approval wait.
import { EventType, type AGUIEvent } from '@ag-ui/core';
import type { RunEvent } from '../../protocol/run-events';
import type { RunPhase } from '../../protocol/run-status-types';
import { AguiEncoder } from './agui-encoder';
import type { FeedRegistry } from './feed-registry';
import type { SseMessage } from './sse-body';

/** What an AG-UI run shows: one turn of a thread, or a whole one-shot run. */
export type AguiScope =
  /**
   * Turn `turn`, whose events follow `afterSeq` (its `message-queued` or `turn-started` is next).
   * `injected`: every event after `afterSeq` is the turn's (its message started it, or joined it running).
   */
  | { kind: 'turn'; turn: number; afterSeq: number; injected: boolean }
  /** A run of a named agent, from its first event to its end. */
  | { kind: 'run' };

/**
 * The AG-UI state an AG-UI run keeps on the client: the workflow (thread or run), the turn and its
 * phase; while it waits for approvals, where the next AG-UI run continues (`afterSeq`,
 * `resumeAfter`). `HttpAgent` sends its state back with every input, so the AG-UI run that answers
 * the interrupts knows where to go on.
 */
export interface AguiTurnState {
  threadId: string;
  /** What is streamed: a thread's turn, or a run (whose workflow id is `workflowId`). */
  kind: 'turn' | 'run';
  workflowId: string;
  /** The thread's turn (null for a run). */
  turn: number | null;
  /** The last phase the client was sent (null before the first `status-changed`). */
  phase: RunPhase | null;
  waitingFor: 'approval' | null;
  /** The event before the turn started (0 for a run). */
  afterSeq: number;
  /** The last event the client was sent, when the AG-UI run ended at an approval wait. */
  resumeAfter: number | null;
}

/** A completed turn or run as its AG-UI run ends: the `result` RUN_FINISHED carries, or why it failed. */
export interface TurnOutcome {
  result: unknown;
  failure: { type: string | null; message: string } | null;
}

/** The event that ends a scope's AG-UI run with a result. */
export type CompletionEvent = Extract<RunEvent, { type: 'turn-completed' } | { type: 'run-completed' }>;

export interface AguiStreamOptions {
  feeds: FeedRegistry;
  /** AG-UI's thread id (the client's `threadId`). */
  threadId: string;
  /** The workflow whose events are streamed: the thread, or the run. */
  workflowId: string;
  /** The AG-UI run id (the client's `runId`). */
  runId: string;
  scope: AguiScope;
  /** Continue after this event (the previous AG-UI run ended at an approval wait there); null: from the scope's start. */
  resumeAfter: number | null;
  /** Approvals this request just decided: a wait on them alone is not a wait (their decisions are on the way to the log). */
  decided: ReadonlySet<string>;
  /** How a turn or run ended: RUN_FINISHED's `result`, or the failure RUN_ERROR reports (`stopReason` failed). */
  outcome(completed: CompletionEvent): Promise<TurnOutcome>;
  signal: AbortSignal;
}

/**
 * The AG-UI events of one turn or run: RUN_STARTED and its state, its steps, text and tool calls,
 * then RUN_FINISHED when it completes, RUN_FINISHED with an interrupt outcome when it waits for
 * approvals (everything logged was sent), or RUN_ERROR when it fails.
 */
export async function* aguiStream(options: AguiStreamOptions): AsyncGenerator<SseMessage> {
  const { threadId, runId, scope, resumeAfter } = options;
  const turn = scope.kind === 'turn' ? scope.turn : null;
  const afterSeq = scope.kind === 'turn' ? scope.afterSeq : 0;
  const encoder = new AguiEncoder(turn === null ? `${options.workflowId}:run` : `${threadId}:turn-${turn}`, afterSeq);
  const state: AguiTurnState = {
    threadId,
    kind: scope.kind,
    workflowId: options.workflowId,
    turn,
    phase: null,
    waitingFor: null,
    afterSeq,
    resumeAfter: null,
  };
  const send = function* (events: AGUIEvent[]): Generator<SseMessage> {
    for (const data of events) yield { data, id: null };
  };
  let replaying = resumeAfter !== null && resumeAfter > afterSeq;
  let inScope = scope.kind === 'run' || scope.injected;
  let failure: string | null = null;
  yield* send([
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.STATE_SNAPSHOT, snapshot: state },
  ]);
  try {
    for await (const item of options.feeds.follow(options.workflowId, afterSeq, options.signal)) {
      if (item.kind === 'caught-up') {
        if (replaying) {
          replaying = false;
          encoder.continueAfter(resumeAfter!);
        }
        const interrupts = encoder.interrupts;
        if (inScope && interrupts.some((interrupt) => !options.decided.has(interrupt.id))) {
          const waiting = { ...state, waitingFor: 'approval' as const, resumeAfter: encoder.lastSeq };
          for (const interrupt of interrupts)
            interrupt.metadata = { ...interrupt.metadata, ...(turn !== null ? { turn } : {}), afterSeq, resumeAfter: encoder.lastSeq };
          return yield* send([
            ...encoder.close(),
            { type: EventType.STATE_SNAPSHOT, snapshot: waiting },
            { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'interrupt', interrupts } },
          ]);
        }
        continue;
      }
      if (item.kind === 'text') {
        if (!replaying && inScope) yield* send(encoder.liveText(item.step, item.attempt, item.text));
        continue;
      }
      const event = item.event;
      if (event.type === 'turn-started' && turn !== null) inScope = event.turn === turn;
      if (event.type === 'thread-closed') return yield* finished(encoder, options, { stopReason: 'thread_closed', reason: event.reason });
      if (!inScope) continue;
      if (replaying && event.seq > resumeAfter!) {
        replaying = false;
        encoder.continueAfter(resumeAfter!);
      }
      if (event.type === 'run-failed') failure = event.message;
      if (event.type === 'status-changed') state.phase = event.phase;
      const events = encoder.event(event);
      if (!replaying) yield* send(events);
      // A run's failure is its last event: the workflow fails with it.
      if (event.type === 'run-failed' && turn === null)
        return yield* send([...encoder.close(), runError(event.message, event.failureType ?? 'RunFailed')]);
      if (!endsScope(event, turn)) continue;
      const outcome = await options.outcome(event);
      if (event.stopReason !== 'failed') return yield* finished(encoder, options, outcome.result);
      const message = outcome.failure?.message ?? failure ?? (event.output || 'The turn failed');
      return yield* send([...encoder.close(), runError(message, outcome.failure?.type ?? 'TurnFailed')]);
    }
  } catch (error) {
    if (options.signal.aborted) return;
    return yield* send([...encoder.close(), runError(error instanceof Error ? error.message : String(error), 'StreamFailed')]);
  }
  if (!options.signal.aborted) yield* finished(encoder, options, { stopReason: 'ended' });
}

/** Whether `event` completes the scope: its turn's `turn-completed`, or (turn null) the run's `run-completed`. */
function endsScope(event: RunEvent, turn: number | null): event is CompletionEvent {
  return turn === null ? event.type === 'run-completed' : event.type === 'turn-completed' && event.turn === turn;
}

async function* finished(encoder: AguiEncoder, options: AguiStreamOptions, result: unknown): AsyncGenerator<SseMessage> {
  const events: AGUIEvent[] = [
    ...encoder.close(),
    { type: EventType.RUN_FINISHED, threadId: options.threadId, runId: options.runId, result, outcome: { type: 'success' } },
  ];
  for (const data of events) yield { data, id: null };
}

function runError(message: string, code: string): AGUIEvent {
  return { type: EventType.RUN_ERROR, message, code };
}
