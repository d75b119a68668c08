// Streams of a thread's turn or a run as SSE responses: where a turn starts in the log, and what its finish chunk says.
import type { AgentClient } from '../../client/agent-client';
import { findEvent } from '../../client/event-scan';
import type { RunEvent } from '../../protocol/run-events';
import type { TurnResult } from '../../protocol/thread-types';
import type { RouteContext, RouteReply } from '../gateway-route';
import { sseBody, SSE_HEADERS } from './sse-body';
import { parsePositionId, type StreamPosition } from './stream-position';
import { GatewayError, GatewayErrorCode } from '../gateway-errors';
import type { StreamEnd } from './ui-message-encoder';
import { uiMessageStream, type StreamScope } from './ui-message-stream';

/** The header the AI SDK's stream reader expects on a UI message stream. */
const UI_STREAM_HEADERS = { ...SSE_HEADERS, 'x-vercel-ai-ui-message-stream': 'v1' };

/**
 * The event cursor just before turn `turn` of a thread entered its log (`message-queued` or
 * `turn-started`), or null when the log no longer holds it (an old turn: the log keeps the newest events).
 */
export async function turnStartCursor(agents: AgentClient, threadId: string, turn: number): Promise<number | null> {
  const first = await findEvent(
    agents.getRun(threadId).workflow,
    (event) => (event.type === 'turn-started' || event.type === 'message-queued') && event.turn === turn,
  );
  return first ? first.seq - 1 : null;
}

/**
 * Where a stream request continues: its `Last-Event-ID` header (or `lastEventId` query parameter),
 * null for a stream from the start. @throws GatewayError 400 naming `Last-Event-ID` for an id that
 * is not one of the gateway's.
 */
export function resumePositionOf(context: RouteContext): StreamPosition | null {
  const resumeId = context.headers.get('last-event-id') ?? context.query.get('lastEventId');
  const resume = parsePositionId(resumeId);
  if (resumeId !== null && resume === null)
    throw new GatewayError(400, GatewayErrorCode.invalidRequest, `Last-Event-ID: '${resumeId}' is not an event id of this gateway's streams`, {
      field: 'Last-Event-ID',
    });
  return resume;
}

/** What a stream of a turn or run needs besides the route's context. */
export interface UiStreamRequest {
  workflowId: string;
  scope: StreamScope;
  messageId: string;
  resume: StreamPosition | null;
  endAtApprovalWait: boolean;
}

/** A UI message stream (SSE) reply for a turn or run, ended with a `finish` that carries the turn's usage and where to continue. */
export function uiStreamReply(context: RouteContext, request: UiStreamRequest): RouteReply {
  const abort = new AbortController();
  const signal = AbortSignal.any([abort.signal, context.signal]);
  const finishMetadata = (end: StreamEnd, resumeFrom: string, completed: RunEvent | null) =>
    finishMetadataOf(context.agents, request, end, resumeFrom, completed);
  const messages = uiMessageStream({ ...request, feeds: context.feeds, finishMetadata, signal });
  return { status: 200, stream: sseBody(messages, abort, '[DONE]'), headers: UI_STREAM_HEADERS };
}

/** A finished turn whose events the log no longer holds: its answer from its result, as one text part. */
export function finishedTurnReply(messageId: string, result: TurnResult): RouteReply {
  const id = `text-${result.lastStep}-answer`;
  const chunks = [
    { type: 'start', messageId },
    { type: 'start-step' },
    ...(result.output
      ? [
          { type: 'text-start', id },
          { type: 'text-delta', id, delta: result.output },
          { type: 'text-end', id },
        ]
      : []),
    { type: 'finish-step' },
    { type: 'finish', finishReason: result.stopReason === 'completed' ? 'stop' : 'other', messageMetadata: turnMetadata(result) },
  ];
  async function* replay() {
    for (const data of chunks) yield { data, id: null };
  }
  return { status: 200, stream: sseBody(replay(), new AbortController(), '[DONE]'), headers: UI_STREAM_HEADERS };
}

/**
 * The `finish` chunk's metadata. A turn that waits for approvals says where its stream stopped
 * (`resumeFrom`, `afterSeq`), so the chat's next request continues it; a completed one gives its usage.
 */
async function finishMetadataOf(
  agents: AgentClient,
  request: UiStreamRequest,
  end: StreamEnd,
  resumeFrom: string,
  completed: RunEvent | null,
): Promise<unknown> {
  const scope = request.scope;
  const turn = scope.kind === 'turn' ? scope.turn : null;
  const base = { workflowId: request.workflowId, ...(turn !== null ? { turn, afterSeq: (scope as { afterSeq: number }).afterSeq } : {}), resumeFrom };
  if (end === 'waiting') return { ...base, waitingFor: 'approval' };
  // The completion event carries the usage (events logged since it was added): no query needed.
  if (completed && (completed.type === 'turn-completed' || completed.type === 'run-completed') && completed.usage)
    return {
      ...base,
      stopReason: completed.stopReason,
      usage: completed.usage,
      ...(completed.type === 'turn-completed' && completed.agentVersion ? { agentVersion: completed.agentVersion } : {}),
    };
  if (turn === null) {
    const status = await agents
      .getRun(request.workflowId)
      .status()
      .catch(() => null);
    return { ...base, stopReason: end, ...(status ? { usage: status.usage } : {}) };
  }
  const status = await agents
    .thread(request.workflowId)
    .status()
    .catch(() => null);
  const result = status?.recentTurns.find((candidate) => candidate.turn === turn);
  return { ...base, ...(result ? turnMetadata(result) : { stopReason: end }) };
}

function turnMetadata(result: TurnResult): Record<string, unknown> {
  return {
    turn: result.turn,
    stopReason: result.stopReason,
    usage: result.usage,
    ...(result.agentVersion ? { agentVersion: result.agentVersion } : {}),
  };
}
