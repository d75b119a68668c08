// What the AG-UI routes share: RunAgentInput as `HttpAgent` posts it, the interrupts it answers, and the SSE reply.
import { z } from 'zod';
import { decideApproval } from '../console/console-actions';
import { decisionRefused } from './chat-routes';
import { requireScope } from './gateway-auth';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import type { RouteContext, RouteReply } from './gateway-route';
import { aguiStream, type AguiStreamOptions } from './streams/agui-stream';
import { sseBody, SSE_HEADERS } from './streams/sse-body';

/** A message of the input: only what the gateway reads is checked (the workflow keeps the conversation). */
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

/** `POST /v1/agui` and `POST /v1/agui/runs`: AG-UI's RunAgentInput as `HttpAgent` sends it. */
export const aguiBody = z.looseObject({
  threadId: z.string().min(1).max(200).describe("The thread's id (for `/v1/agui/runs`: the run's workflow id)"),
  runId: z.string().min(1).max(200).describe('This AG-UI run'),
  messages: z.array(aguiMessage).describe("The conversation so far; the gateway sends the last message when it is the user's"),
  resume: z.array(resumeEntry).optional().describe('Answers to the approval interrupts the previous AG-UI run finished with'),
  state: z.unknown().optional().describe('The state the previous AG-UI run left (where a resumed turn or run continues)'),
  tools: z.array(z.unknown()).optional(),
  context: z.array(z.unknown()).optional(),
  forwardedProps: z.unknown().optional().describe('`{ agent, resourceId }`: the named agent that creates the thread or runs'),
});

export type AguiInput = z.infer<typeof aguiBody>;

/** What the creating fields of `forwardedProps` may be. */
const forwarded = z.looseObject({ agent: z.string().min(1).max(300).optional(), resourceId: z.string().min(1).max(200).optional() });

/** The input's last message, refused (400, `messages`) unless it is the user's; and its text. */
export function lastUserMessage(input: AguiInput): { id: string; text: string } {
  const last = input.messages.at(-1);
  if (last?.role !== 'user')
    throw invalid(
      'messages',
      `the last message must be the user's, not ${last ? `'${last.role}'` : 'absent'} (or answer the interrupts with resume)`,
    );
  return { id: last.id, text: textOf(last.content) };
}

/** The agent (`?agent=`, else `forwardedProps.agent`) and `forwardedProps.resourceId`, each when given. */
export function creatingFields(context: RouteContext, input: AguiInput): { agent?: string; resourceId?: string } {
  const props = forwarded.safeParse(input.forwardedProps ?? {});
  if (!props.success) throw invalid('forwardedProps', 'agent and resourceId are strings when given');
  const agent = context.query.get('agent') ?? props.data.agent;
  return {
    ...(agent !== undefined ? { agent } : {}),
    ...(props.data.resourceId !== undefined ? { resourceId: props.data.resourceId } : {}),
  };
}

/** A user message's text: its `content` string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** A 400 naming the input field at fault. */
export function invalid(field: string, message: string): GatewayError {
  return new GatewayError(400, GatewayErrorCode.invalidRequest, `${field}: ${message}`, { field });
}

/** Where the interrupted AG-UI run stopped, from the state it left on the client (`what` says what the schema needs, for the 400). */
export function resumePosition<T extends z.ZodType>(input: AguiInput, schema: T, what: string): z.infer<T> {
  const position = schema.safeParse(input.state);
  if (!position.success) throw invalid('state', `resuming needs the state the interrupted run left (${what})`);
  return position.data;
}

/**
 * Decides each answered interrupt of `workflowId` as the caller's principal (scope `approve`, the
 * access file's approvers); an approval decided elsewhere meanwhile is not an error. Returns the ids decided.
 */
export async function decideInterrupts(context: RouteContext, workflowId: string, input: AguiInput): Promise<Set<string>> {
  requireScope(context.principal, 'approve');
  const decided = new Set<string>();
  for (const [index, entry] of (input.resume ?? []).entries()) {
    const answer = z.looseObject({ approved: z.boolean(), reason: z.string().max(4_000).optional() }).safeParse(entry.payload);
    if (entry.status === 'resolved' && !answer.success)
      throw invalid(`resume[${index}].payload`, 'an approval is answered with { approved: boolean, reason?: string }');
    const approved = entry.status === 'resolved' && answer.data!.approved;
    const reason = entry.status === 'cancelled' ? 'Cancelled by the client' : answer.data?.reason;
    const result = await decideApproval(context.agents, context.access.approvers, {
      workflowId,
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
  return decided;
}

/** What an AG-UI reply streams besides the route's context. */
export type AguiReplyScope = Pick<AguiStreamOptions, 'workflowId' | 'scope' | 'resumeAfter' | 'decided' | 'outcome'>;

/** The AG-UI events (SSE) of a turn or run, ended when the client goes away. */
export function aguiReply(context: RouteContext, input: AguiInput, scope: AguiReplyScope): RouteReply {
  const abort = new AbortController();
  const signal = AbortSignal.any([abort.signal, context.signal]);
  const events = aguiStream({ ...scope, feeds: context.feeds, threadId: input.threadId, runId: input.runId, signal });
  return { status: 200, stream: sseBody(events, abort, null), headers: SSE_HEADERS };
}
