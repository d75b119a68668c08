// One turn of a thread as an AG-UI run: the feed's items through the encoder, ended by the turn or by its approval wait.
import { EventType, type AGUIEvent } from '@ag-ui/core';
import type { RunEvent } from '../../protocol/run-events';
import type { RunPhase } from '../../protocol/run-status-types';
import { AguiEncoder } from './agui-encoder';
import type { FeedRegistry } from './feed-registry';
import type { SseMessage } from './sse-body';

/**
 * The AG-UI state a turn's runs keep on the client: the thread, the turn and its phase; while the
 * turn waits for approvals, where the next run continues (`afterSeq`, `resumeAfter`). `HttpAgent`
 * sends its state back with every input, so the run that answers the interrupts knows where to go on.
 */
export interface AguiTurnState {
  threadId: string;
  turn: number;
  /** The turn's last phase the client was sent (null before its first `status-changed`). */
  phase: RunPhase | null;
  waitingFor: 'approval' | null;
  /** The event before the turn started. */
  afterSeq: number;
  /** The last event the client was sent, when the run ended at an approval wait. */
  resumeAfter: number | null;
}

/** A completed turn as its AG-UI run ends: the `result` RUN_FINISHED carries, or why it failed. */
export interface TurnOutcome {
  result: unknown;
  failure: { type: string | null; message: string } | null;
}

export interface AguiStreamOptions {
  feeds: FeedRegistry;
  threadId: string;
  /** The AG-UI run id (the client's `runId`). */
  runId: string;
  turn: number;
  /** The event before the turn's first (its `message-queued` or `turn-started`). */
  afterSeq: number;
  /** Every event after `afterSeq` is the turn's (its message started it, or joined it running): they are in scope from the start. */
  injected: boolean;
  /** Continue after this event (the previous run ended at an approval wait there); null: from the turn's start. */
  resumeAfter: number | null;
  /** Approvals this request just decided: a wait on them alone is not a wait (their decisions are on the way to the log). */
  decided: ReadonlySet<string>;
  /** How a turn ended: RUN_FINISHED's `result`, or the failure RUN_ERROR reports (`stopReason` failed). */
  outcome(completed: Extract<RunEvent, { type: 'turn-completed' }>): Promise<TurnOutcome>;
  signal: AbortSignal;
}

/**
 * The AG-UI events of one turn: RUN_STARTED and the turn's state, its steps, text and tool calls,
 * then RUN_FINISHED when it completes, RUN_FINISHED with an interrupt outcome when it waits for
 * approvals (everything logged was sent), or RUN_ERROR when it fails.
 */
export async function* aguiStream(options: AguiStreamOptions): AsyncGenerator<SseMessage> {
  const { threadId, runId, turn, afterSeq, resumeAfter } = options;
  const encoder = new AguiEncoder(`${threadId}:turn-${turn}`, afterSeq);
  const state: AguiTurnState = { threadId, turn, phase: null, waitingFor: null, afterSeq, resumeAfter: null };
  const send = function* (events: AGUIEvent[]): Generator<SseMessage> {
    for (const data of events) yield { data, id: null };
  };
  let replaying = resumeAfter !== null && resumeAfter > afterSeq;
  let inScope = options.injected;
  let failure: string | null = null;
  yield* send([
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.STATE_SNAPSHOT, snapshot: state },
  ]);
  try {
    for await (const item of options.feeds.follow(threadId, afterSeq, options.signal)) {
      if (item.kind === 'caught-up') {
        if (replaying) {
          replaying = false;
          encoder.continueAfter(resumeAfter!);
        }
        const interrupts = encoder.interrupts;
        if (inScope && interrupts.some((interrupt) => !options.decided.has(interrupt.id))) {
          const waiting = { ...state, waitingFor: 'approval' as const, resumeAfter: encoder.lastSeq };
          for (const interrupt of interrupts) interrupt.metadata = { ...interrupt.metadata, turn, afterSeq, resumeAfter: encoder.lastSeq };
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
      if (event.type === 'turn-started') inScope = event.turn === turn;
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
      if (event.type !== 'turn-completed' || event.turn !== turn) continue;
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
