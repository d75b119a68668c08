// The AG-UI endpoint: `HttpAgent` (and CopilotKit) post a RunAgentInput and read the thread's turn as AG-UI events.
import { z } from 'zod';
import { decideApproval } from '../console/console-actions';
import { decisionRefused, receiptStartsInside } from './chat-routes';
import { requireScope } from './gateway-auth';
import { checkedBody } from './gateway-body';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import { findExecution, type GatewayRoute, type RouteContext, type RouteReply } from './gateway-route';
import { aguiStream, type AguiStreamOptions } from './streams/agui-stream';
import { sseBody, SSE_HEADERS } from './streams/sse-body';
import { sendThreadMessage } from './thread-routes';

/** A message of the input: only what the gateway reads is checked (the thread keeps the conversation). */
const aguiMessage = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.string(),
  content: z.unknown().optional(),
});

/** An answer to one interrupt: `payload` `{ approved, reason? }`, or `status: 'cancelled'` (a rejection). */
const resumeEntry = z.looseObject({
  interruptId: z.string().min(1).max(200),
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

/** `POST /v1/agui`: AG-UI's RunAgentInput as `HttpAgent` sends it. */
export const aguiBody = z.looseObject({
  threadId: z.string().min(1).max(200).describe("The thread's id"),
  runId: z.string().min(1).max(200).describe('This AG-UI run'),
  messages: z.array(aguiMessage).describe("The conversation so far; the gateway sends the last message when it is the user's"),
  resume: z.array(resumeEntry).optional().describe('Answers to the approval interrupts the previous run finished with'),
  state: z.unknown().optional().describe('The state the previous run left (where a resumed turn continues)'),
  tools: z.array(z.unknown()).optional(),
  context: z.array(z.unknown()).optional(),
  forwardedProps: z.unknown().optional().describe('`{ agent, resourceId }` create the thread by a named agent'),
});

type AguiInput = z.infer<typeof aguiBody>;

/** Where the interrupted run stopped, from the state it left on the client. */
const resumeState = z.looseObject({
  turn: z.number().int().min(1),
  afterSeq: z.number().int().min(0),
  resumeAfter: z.number().int().min(0),
});

/** What the thread-creating fields of `forwardedProps` may be. */
const forwarded = z.looseObject({ agent: z.string().min(1).max(300).optional(), resourceId: z.string().min(1).max(200).optional() });

/** A user message's text: its `content` string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

function invalid(field: string, message: string): GatewayError {
  return new GatewayError(400, GatewayErrorCode.invalidRequest, `${field}: ${message}`, { field });
}

const agui: GatewayRoute = {
  method: 'POST',
  path: '/v1/agui',
  name: 'agui',
  summary:
    "The AG-UI endpoint (`new HttpAgent({ url: '/v1/agui?agent=…' })`): a user message starts or joins a turn of thread `threadId`; `resume` answers the approval interrupts and continues the turn. Answers AG-UI events",
  scope: 'send',
  streams: true,
  body: aguiBody,
  query: { agent: 'Creating the thread: a named agent (or `forwardedProps.agent`)' },
  responses: {
    200: 'AG-UI events (SSE) of the turn, until it completes (RUN_FINISHED), waits for approvals (RUN_FINISHED with an interrupt) or fails (RUN_ERROR)',
  },
  async handle(context) {
    const input = checkedBody(aguiBody, context.body);
    if (input.resume?.length) return resumeTurn(context, input);
    const last = input.messages.at(-1);
    if (last?.role !== 'user')
      throw invalid(
        'messages',
        `the last message must be the user's, not ${last ? `'${last.role}'` : 'absent'} (or answer the interrupts with resume)`,
      );
    const props = forwarded.safeParse(input.forwardedProps ?? {});
    if (!props.success) throw invalid('forwardedProps', 'agent and resourceId are strings when given');
    const agent = context.query.get('agent') ?? props.data.agent;
    const turn = await sendThreadMessage(context, input.threadId, {
      text: textOf(last.content),
      messageId: last.id,
      ...(agent !== undefined ? { agent } : {}),
      ...(props.data.resourceId !== undefined ? { resourceId: props.data.resourceId } : {}),
    });
    const { receipt } = turn;
    return aguiReply(context, input, {
      turn: receipt.turn,
      afterSeq: receipt.eventCursor,
      injected: receiptStartsInside(receipt.disposition),
      resumeAfter: null,
      decided: new Set(),
    });
  },
};

/** Decides the answered interrupts as the caller's principal, then continues the turn where the interrupted run stopped. */
async function resumeTurn(context: RouteContext, input: AguiInput): Promise<RouteReply> {
  const position = resumeState.safeParse(input.state);
  if (!position.success) throw invalid('state', 'resuming needs the state the interrupted run left (turn, afterSeq, resumeAfter)');
  requireScope(context.principal, 'approve');
  await findExecution(context, input.threadId, 'thread');
  const decided = new Set<string>();
  for (const [index, entry] of input.resume!.entries()) {
    const answer = z.looseObject({ approved: z.boolean(), reason: z.string().max(4_000).optional() }).safeParse(entry.payload);
    if (entry.status === 'resolved' && !answer.success)
      throw invalid(`resume[${index}].payload`, 'an approval is answered with { approved: boolean, reason?: string }');
    const approved = entry.status === 'resolved' && answer.data!.approved;
    const reason = entry.status === 'cancelled' ? 'Cancelled by the client' : answer.data?.reason;
    const result = await decideApproval(context.agents, context.access.approvers, {
      workflowId: input.threadId,
      approvalId: entry.interruptId,
      decision: approved ? 'approve' : 'reject',
      reason,
      identity: context.principal.name,
      via: 'ag-ui',
      // Signed as the principal when the gateway has a decision key (agents that require verified decisions).
      ...(context.decisionKey ? { signingKey: context.decisionKey } : {}),
    });
    // Decided already (this caller's retry, another person, the timeout): the stream shows how it went.
    if (!result.ok && result.httpStatus !== 409) throw decisionRefused(result.httpStatus, result.message, result.code);
    decided.add(entry.interruptId);
  }
  const { turn, afterSeq, resumeAfter } = position.data;
  return aguiReply(context, input, { turn, afterSeq, injected: false, resumeAfter, decided });
}

type TurnScope = Pick<AguiStreamOptions, 'turn' | 'afterSeq' | 'injected' | 'resumeAfter' | 'decided'>;

function aguiReply(context: RouteContext, input: AguiInput, scope: TurnScope): RouteReply {
  const abort = new AbortController();
  const signal = AbortSignal.any([abort.signal, context.signal]);
  const threadId = input.threadId;
  const outcome: AguiStreamOptions['outcome'] = async (completed) => {
    const status = await context.agents
      .thread(threadId)
      .status()
      .catch(() => null);
    const found = status?.recentTurns.find((candidate) => candidate.turn === completed.turn);
    const result = {
      turn: completed.turn,
      stopReason: completed.stopReason,
      output: completed.output,
      ...(found ? { usage: found.usage, ...(found.agentVersion ? { agentVersion: found.agentVersion } : {}) } : {}),
    };
    return { result, failure: found?.failure ?? null };
  };
  const events = aguiStream({ ...scope, feeds: context.feeds, threadId, runId: input.runId, outcome, signal });
  return { status: 200, stream: sseBody(events, abort, null), headers: SSE_HEADERS };
}

/** The AG-UI route, in the order the OpenAPI document lists it. */
export const aguiRoutes: readonly GatewayRoute[] = [agui];
