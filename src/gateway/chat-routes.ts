// The AI SDK chat endpoint: `useChat` with its default transport sends here, reads the turn as a UI message stream, and resumes it.
import { z } from 'zod';
import { decideApproval } from '../console/console-actions';
import { ErrorCode } from '../protocol/errors';
import type { ThreadMessageReceipt } from '../protocol/thread-types';
import { requireScope } from './gateway-auth';
import { checkedBody } from './gateway-body';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import { findExecution, type FoundExecution, type GatewayRoute, type RouteContext } from './gateway-route';
import { parsePositionId } from './streams/stream-position';
import { finishedTurnReply, resumePositionOf, turnStartCursor, uiStreamReply } from './streams/turn-streams';
import { sendThreadMessage, turnParam } from './thread-routes';

/** A UI message as `useChat` sends it: only what the gateway reads is checked, the rest is the SDK's. */
const uiMessage = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string() })),
  metadata: z.unknown().optional(),
});

/** `POST /v1/chat`: the AI SDK's chat request (its `body` option's fields pass through: `agent` creates the thread by name). */
export const chatBody = z.looseObject({
  id: z.string().min(1).max(200).describe("The chat's id: the thread's id"),
  messages: z.array(uiMessage).min(1).describe('The chat so far; the gateway reads the last message only (the thread keeps the conversation)'),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().optional(),
  agent: z.string().min(1).max(300).optional().describe('Creating the thread: a named agent (or `?agent=` on the URL)'),
  config: z.record(z.string(), z.unknown()).optional().describe('Creating the thread: an inline agent config (instead of `agent`)'),
  resourceId: z.string().min(1).max(200).optional().describe('Creating the thread: who it is for (memory scope)'),
});

type ChatMessage = z.infer<typeof uiMessage>;

/** What a stream's `finish` told the chat when its turn waited for approvals: where the next request continues. */
const waitMetadata = z.looseObject({ turn: z.number().int().min(1), afterSeq: z.number().int().min(0), resumeFrom: z.string() });

/** An approval a `useChat` user answered (`addToolApprovalResponse`): a tool part in state `approval-responded`. */
interface AnsweredApproval {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

function answeredApprovals(message: ChatMessage): AnsweredApproval[] {
  const answered: AnsweredApproval[] = [];
  for (const part of message.parts as Array<{ state?: unknown; approval?: { id?: unknown; approved?: unknown; reason?: unknown } }>) {
    const approval = part.approval;
    if (part.state !== 'approval-responded' || typeof approval?.id !== 'string' || typeof approval.approved !== 'boolean') continue;
    answered.push({
      approvalId: approval.id,
      approved: approval.approved,
      ...(typeof approval.reason === 'string' ? { reason: approval.reason } : {}),
    });
  }
  return answered;
}

function textOf(message: ChatMessage): string {
  return message.parts
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text' && typeof (part as { text?: unknown }).text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** A key for the thread's chain of executions (a thread deleted and made again under its id is another chain). */
function chainOf(found: FoundExecution): string {
  return `${found.description.workflowId}/${found.description.raw.workflowExecutionInfo?.firstRunId ?? found.description.runId}`;
}

/** A message that started its turn (or joined the running one): every event after its cursor is that turn's. */
export function receiptStartsInside(disposition: ThreadMessageReceipt['disposition']): boolean {
  return disposition === 'started' || disposition === 'injected';
}

/** The assistant message id a turn's stream carries: the same on every stream of that turn, so a replay replaces it. */
function turnMessageId(threadId: string, turn: number): string {
  return `${threadId}:turn-${turn}`;
}

const chat: GatewayRoute = {
  method: 'POST',
  path: '/v1/chat',
  name: 'chat',
  summary:
    "The AI SDK chat endpoint (`useChat` with `DefaultChatTransport({ api: '/v1/chat' })`): a user message starts or joins a turn of thread `id`; answered approvals continue the turn. Answers a UI message stream",
  scope: 'send',
  streams: true,
  body: chatBody,
  query: { agent: 'Creating the thread: a named agent (or `agent` in the body)' },
  responses: { 200: 'A UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`) of the turn, until it completes or waits for approvals' },
  async handle(context) {
    const body = checkedBody(chatBody, context.body);
    if (body.trigger === 'regenerate-message')
      throw new GatewayError(
        400,
        GatewayErrorCode.invalidRequest,
        "trigger: 'regenerate-message' is not offered: a thread's turns are durable; send a new message",
        {
          field: 'trigger',
        },
      );
    const last = body.messages.at(-1)!;
    if (last.role === 'assistant') return continueAfterApprovals(context, body.id, last);
    if (last.role !== 'user')
      throw new GatewayError(
        400,
        GatewayErrorCode.invalidRequest,
        `messages: the last message must be the user's (or an assistant message with answered approvals), not '${last.role}'`,
        {
          field: 'messages',
        },
      );
    const agent = body.agent ?? context.query.get('agent') ?? undefined;
    const turn = await sendThreadMessage(context, body.id, {
      text: textOf(last),
      messageId: last.id,
      ...(agent !== undefined ? { agent } : {}),
      ...(body.config !== undefined ? { config: body.config } : {}),
      ...(body.resourceId !== undefined ? { resourceId: body.resourceId } : {}),
    });
    const { receipt } = turn;
    return uiStreamReply(context, {
      workflowId: body.id,
      scope: { kind: 'turn', turn: receipt.turn, afterSeq: receipt.eventCursor, inside: receiptStartsInside(receipt.disposition) },
      messageId: turnMessageId(body.id, receipt.turn),
      resume: null,
      endAtApprovalWait: true,
    });
  },
};

/** Decides the approvals the chat's user answered (as the caller's principal), then continues the turn's stream where it stopped. */
async function continueAfterApprovals(context: RouteContext, threadId: string, message: ChatMessage) {
  const answered = answeredApprovals(message);
  const wait = waitMetadata.safeParse(message.metadata);
  if (answered.length === 0 || !wait.success)
    throw new GatewayError(
      400,
      GatewayErrorCode.invalidRequest,
      'messages: an assistant message last needs answered approvals (state approval-responded) and the metadata its stream finished with (turn, afterSeq, resumeFrom)',
      { field: 'messages' },
    );
  requireScope(context.principal, 'approve');
  await findExecution(context, threadId, 'thread');
  for (const { approvalId, approved, reason } of answered) {
    const decision = approved ? 'approve' : 'reject';
    const identity = context.principal.name;
    const signingKey = context.decisionKey;
    const result = await decideApproval(context.agents, context.access.approvers, {
      workflowId: threadId,
      approvalId,
      decision,
      reason,
      identity,
      via: 'ai-sdk',
      ...(signingKey ? { signingKey } : {}),
    });
    // Decided already (by this caller's retry, another person, or the timeout): the stream shows how it went.
    if (!result.ok && result.httpStatus !== 409) throw decisionRefused(result.httpStatus, result.message, result.code);
  }
  return uiStreamReply(context, {
    workflowId: threadId,
    scope: { kind: 'turn', turn: wait.data.turn, afterSeq: wait.data.afterSeq },
    messageId: message.id,
    resume: parsePositionId(wait.data.resumeFrom),
    endAtApprovalWait: true,
  });
}

/** A refused decision as the gateway's typed error (403 DecisionUnverified or Forbidden, 404 ApprovalNotFound, 400, else 500). */
export function decisionRefused(status: number, message: string, code: string | undefined): GatewayError {
  if (status === 403 && code === ErrorCode.decisionUnverified) return new GatewayError(403, code, message, { field: 'approvalId' });
  if (status === 403) return new GatewayError(403, GatewayErrorCode.forbidden, message, { field: 'approvalId' });
  if (status === 404) return new GatewayError(404, GatewayErrorCode.approvalNotFound, message, { field: 'approvalId' });
  return new GatewayError(status === 400 ? 400 : 500, status === 400 ? GatewayErrorCode.invalidRequest : GatewayErrorCode.internal, message);
}

const resumeChat: GatewayRoute = {
  method: 'GET',
  path: '/v1/chat/:id/stream',
  name: 'resumeChat',
  streams: true,
  summary:
    "The AI SDK's resume (`useChat({ resume: true })`): the running turn of thread `id` replayed from its start, then live; 204 when no turn runs",
  scope: 'read',
  responses: { 200: 'A UI message stream of the running turn', 204: 'No turn is running: nothing to resume' },
  async handle(context) {
    const found = await findExecution(context, context.params.id!, 'thread').catch((error: unknown) => {
      if ((error as { code?: string }).code === ErrorCode.threadNotFound) return null;
      throw error;
    });
    if (!found?.running) return { status: 204, body: null };
    const threadId = found.description.workflowId;
    const status = await context.agents.thread(threadId).status();
    const turn = status.currentTurn;
    const afterSeq =
      turn === null ? null : await context.feeds.turnStart(chainOf(found), turn, () => turnStartCursor(context.agents, threadId, turn));
    if (turn === null || afterSeq === null) return { status: 204, body: null };
    return uiStreamReply(context, {
      workflowId: threadId,
      scope: { kind: 'turn', turn, afterSeq },
      messageId: turnMessageId(threadId, turn),
      resume: null,
      endAtApprovalWait: true,
    });
  },
};

const turnStream: GatewayRoute = {
  method: 'GET',
  path: '/v1/threads/:id/turns/:n/stream',
  name: 'streamTurn',
  streams: true,
  summary:
    'One turn as a UI message stream (SSE) until it completes, approvals included; `Last-Event-ID` continues after the last event a client had, on any gateway. A finished turn is replayed, then the stream closes',
  scope: 'read',
  query: { lastEventId: 'Continue after this event id (as the `Last-Event-ID` header)' },
  responses: { 200: 'A UI message stream of the turn', 404: 'TurnNotFound: the thread has no such turn' },
  async handle(context) {
    const turn = turnParam(context);
    const found = await findExecution(context, context.params.id!, 'thread');
    const threadId = found.description.workflowId;
    const resume = resumePositionOf(context);
    const afterSeq = await context.feeds.turnStart(chainOf(found), turn, () => turnStartCursor(context.agents, threadId, turn));
    if (afterSeq === null) {
      const status = await context.agents.thread(threadId).status();
      if (turn > status.turnsCompleted)
        throw new GatewayError(
          404,
          GatewayErrorCode.turnNotFound,
          `Thread '${threadId}' has no turn ${turn} (turns completed: ${status.turnsCompleted})`,
          {
            field: 'n',
          },
        );
      return finishedTurnReply(turnMessageId(threadId, turn), await context.agents.thread(threadId).turn(turn).result());
    }
    return uiStreamReply(context, {
      workflowId: threadId,
      scope: { kind: 'turn', turn, afterSeq },
      messageId: turnMessageId(threadId, turn),
      resume,
      endAtApprovalWait: false,
    });
  },
};

/** The AI SDK chat routes and the turn stream, in the order the OpenAPI document lists them. */
export const chatRoutes: readonly GatewayRoute[] = [chat, resumeChat, turnStream];
