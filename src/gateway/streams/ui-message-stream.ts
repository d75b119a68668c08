// One turn (or run) as the AI SDK UI message stream: the feed's items through the encoder, resumable at every id.
import type { UIMessageChunk } from 'ai';
import type { RunEvent } from '../../protocol/run-events';
import type { FeedRegistry } from './feed-registry';
import { FeedStoppedError } from './run-feed';
import type { SseMessage } from './sse-body';
import { positionId, type StreamPosition } from './stream-position';
import { UiMessageEncoder, type StreamEnd } from './ui-message-encoder';

/** Which part of a workflow's events a stream shows. */
export type StreamScope =
  /**
   * One turn of a thread: from `afterSeq` (before its `turn-started`) to its `turn-completed`.
   * `inside`: every event after `afterSeq` is the turn's (its message started it, or was injected
   * into it), so text that streams before the `turn-started` event is read already counts.
   */
  | { kind: 'turn'; turn: number; afterSeq: number; inside?: boolean }
  /** A whole run, from its first event. */
  | { kind: 'run' };

export interface UiStreamOptions {
  feeds: FeedRegistry;
  workflowId: string;
  scope: StreamScope;
  /** The assistant message's id (the same on every stream of the turn, so a client's replay replaces it). */
  messageId: string;
  /** Continue after this position (events before it are replayed silently); null: from the start. */
  resume: StreamPosition | null;
  /** End the stream (finish reason `tool-calls`) when the turn waits for approvals: a chat answers them with its next request. */
  endAtApprovalWait: boolean;
  /**
   * The `finish` chunk's message metadata (usage, the turn), given how the stream ended, where a
   * continuation resumes, and the `turn-completed` / `run-completed` event that ended it, if one did.
   */
  finishMetadata(end: StreamEnd, resumeFrom: string, completed: RunEvent | null): Promise<unknown>;
  signal: AbortSignal;
}

/**
 * The UI message chunks of a turn or run, each batch's last chunk carrying the SSE id a client
 * continues from. Ends after `finish`: when the turn completes, the run ends, or (with
 * `endAtApprovalWait`) when everything logged was sent and approvals are pending.
 */
export async function* uiMessageStream(options: UiStreamOptions): AsyncGenerator<SseMessage> {
  try {
    yield* encodedStream(options);
  } catch (error) {
    // The gateway is shutting down: the stream ends here, and its client continues on another process from its last id.
    if (!(error instanceof FeedStoppedError)) throw error;
  }
}

async function* encodedStream(options: UiStreamOptions): AsyncGenerator<SseMessage> {
  const { scope, resume } = options;
  const afterSeq = scope.kind === 'turn' ? scope.afterSeq : 0;
  const encoder = new UiMessageEncoder(afterSeq);
  let replaying = resume !== null && resume.seq > afterSeq;
  let inScope = scope.kind === 'run' || scope.inside === true;
  const pending = new Set<string>();
  const batch = function* (chunks: UIMessageChunk[]): Generator<SseMessage> {
    for (let index = 0; index < chunks.length; index++)
      yield { data: chunks[index], id: index === chunks.length - 1 ? positionId(encoder.position) : null };
  };
  const finish = async function* (end: StreamEnd, completed: RunEvent | null = null): AsyncGenerator<SseMessage> {
    const chunks = encoder.finish(end, null);
    const last = chunks.pop() as Extract<UIMessageChunk, { type: 'finish' }>;
    last.messageMetadata = await options.finishMetadata(end, positionId(encoder.position), completed);
    yield* batch([...chunks, last]);
  };
  yield { data: { type: 'start', messageId: options.messageId } satisfies UIMessageChunk, id: null };
  for await (const item of options.feeds.follow(options.workflowId, afterSeq, options.signal)) {
    if (item.kind === 'caught-up') {
      if (replaying) {
        replaying = false;
        encoder.continueFrom(resume!);
      }
      if (options.endAtApprovalWait && inScope && pending.size > 0) return yield* finish('waiting');
      continue;
    }
    if (item.kind === 'text') {
      if (!replaying && inScope) yield* batch(encoder.liveText(item.step, item.attempt, item.text));
      continue;
    }
    const event = item.event;
    if (scope.kind === 'turn' && event.type === 'turn-started') inScope = event.turn === scope.turn;
    if (scope.kind === 'turn' && event.type === 'thread-closed') return yield* finish('ended');
    if (!inScope) continue;
    if (replaying && event.seq > resume!.seq) {
      replaying = false;
      encoder.continueFrom(resume!);
    }
    if (event.type === 'approval-requested') pending.add(event.request.approvalId);
    if (event.type === 'approval-decided' || event.type === 'approval-ignored') pending.delete(event.approvalId);
    const chunks = encoder.event(event);
    if (!replaying) yield* batch(chunks);
    if (scope.kind === 'turn' && event.type === 'turn-completed' && event.turn === scope.turn) return yield* finish(event.stopReason, event);
    if (scope.kind === 'run' && event.type === 'run-completed') return yield* finish(event.stopReason, event);
    if (scope.kind === 'run' && event.type === 'run-failed') return yield* finish('failed');
  }
  if (!options.signal.aborted) yield* finish('ended');
}
