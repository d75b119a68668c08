// The gateway's thread routes: send a message (creating the thread), read its status, history and a turn's result.
import type { AgentConfigInput } from '../config/agent-config';
import type { AgentOverrides } from '../protocol/agent-reference';
import type { ThreadOptions } from '../client/thread-options';
import { checkedBody } from './gateway-body';
import { requireAgent } from './gateway-auth';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import { agentNamed, findExecution, type GatewayRoute, type RouteContext } from './gateway-route';
import type { TurnHandle } from '../client/turn-handle';
import { threadMessageBody } from './gateway-schemas';

/** A `POST /v1/threads/:id/messages` body, checked. */
export type ThreadMessageBody = ReturnType<typeof threadMessageBody.parse>;

/** The thread options a message body gives (only what creates the thread; a thread that exists keeps its own). */
function threadOptions(body: ThreadMessageBody): ThreadOptions {
  return {
    ...(body.agent !== undefined ? { agent: body.agent } : {}),
    ...(body.config !== undefined ? { config: body.config as AgentConfigInput } : {}),
    ...(body.agents !== undefined ? { agents: body.agents as Record<string, AgentConfigInput> } : {}),
    ...(body.overrides !== undefined ? { overrides: body.overrides as AgentOverrides } : {}),
    ...(body.pin !== undefined ? { pin: body.pin } : {}),
    ...(body.resourceId !== undefined ? { resourceId: body.resourceId } : {}),
    ...(body.whenClosed !== undefined ? { whenClosed: body.whenClosed } : {}),
    ...(body.idleTimeout !== undefined ? { idleTimeout: body.idleTimeout } : {}),
  };
}

/**
 * Sends `body.text` to thread `threadId`, creating it from `body` when it does not exist. Under
 * agent rules, a message to an existing thread is checked against the thread's agent, not the one
 * the body names.
 */
export async function sendThreadMessage(context: RouteContext, threadId: string, body: ThreadMessageBody): Promise<TurnHandle> {
  const named = agentNamed(body);
  if (context.principal.agents !== null) {
    const existing = await findExecution(context, threadId, 'thread').catch((error: unknown) => {
      if (named !== null && (error as { code?: string }).code === 'ThreadNotFound') return null;
      throw error;
    });
    if (!existing) requireAgent(context.principal, named);
  }
  const thread = context.agents.thread(threadId, threadOptions(body));
  return thread.send(body.text, {
    ...(body.messageId !== undefined ? { messageId: body.messageId } : {}),
    ...(body.policy !== undefined ? { policy: body.policy } : {}),
  });
}

/** The `:n` path parameter: a turn number from 1. @throws GatewayError 400 naming `n` otherwise. */
export function turnParam(context: RouteContext): number {
  const turn = Number(context.params.n);
  if (!Number.isInteger(turn) || turn < 1)
    throw new GatewayError(400, GatewayErrorCode.invalidRequest, `n: a turn number from 1, not '${context.params.n}'`, { field: 'n' });
  return turn;
}

const sendMessage: GatewayRoute = {
  method: 'POST',
  path: '/v1/threads/:id/messages',
  name: 'sendThreadMessage',
  summary: 'Send a user message to a thread; with `agent` or `config`, a thread that does not exist is created by it',
  scope: 'send',
  body: threadMessageBody,
  responses: { 202: 'Accepted: { threadId, messageId, turn, disposition, duplicate, eventCursor }' },
  async handle(context) {
    const body = checkedBody(threadMessageBody, context.body);
    const threadId = context.params.id!;
    const turn = await sendThreadMessage(context, threadId, body);
    return { status: 202, body: { threadId, ...turn.receipt } };
  },
};

const threadStatus: GatewayRoute = {
  method: 'GET',
  path: '/v1/threads/:id',
  name: 'getThread',
  summary: "A thread's state: phase, agent, turns completed, the running turn, queued messages, the newest turns' results, usage",
  scope: 'read',
  responses: { 200: 'The ThreadStatus, with threadId' },
  async handle(context) {
    const found = await findExecution(context, context.params.id!, 'thread');
    const status = await context.agents.thread(found.description.workflowId).status();
    return { status: 200, body: { threadId: found.description.workflowId, ...status } };
  },
};

const threadHistory: GatewayRoute = {
  method: 'GET',
  path: '/v1/threads/:id/history',
  name: 'getThreadHistory',
  summary: "A thread's history turn by turn (messages, steps, tool calls, approvals, results), read from Temporal's history",
  scope: 'read',
  responses: { 200: 'The ThreadTranscript: { threadId, runIds, turns, outsideTurns }' },
  async handle(context) {
    const found = await findExecution(context, context.params.id!, 'thread');
    return { status: 200, body: await context.agents.thread(found.description.workflowId).history() };
  },
};

const turnResult: GatewayRoute = {
  method: 'GET',
  path: '/v1/threads/:id/turns/:n',
  name: 'getTurnResult',
  summary: "One turn's result once it has completed; 202 while it is queued or running (poll again)",
  scope: 'read',
  responses: {
    200: '{ threadId, turn, result }',
    202: '{ threadId, turn, state: running | queued }: no result yet',
    404: 'TurnNotFound: no such turn (sent, queued or running) in the thread',
  },
  async handle(context) {
    const turn = turnParam(context);
    const found = await findExecution(context, context.params.id!, 'thread');
    const threadId = found.description.workflowId;
    const thread = context.agents.thread(threadId);
    const status = await thread.status();
    const lastKnown = Math.max(status.currentTurn ?? 0, status.turnsCompleted) + status.queued.length;
    if (turn > lastKnown || (turn > status.turnsCompleted && status.closedReason !== null))
      throw new GatewayError(404, GatewayErrorCode.turnNotFound, `Thread '${threadId}' has no turn ${turn} (turns so far: ${lastKnown})`, {
        field: 'n',
      });
    if (turn > status.turnsCompleted) return { status: 202, body: { threadId, turn, state: status.currentTurn === turn ? 'running' : 'queued' } };
    return { status: 200, body: { threadId, turn, result: await thread.turn(turn).result() } };
  },
};

/** The thread routes, in the order the OpenAPI document lists them. */
export const threadRoutes: readonly GatewayRoute[] = [sendMessage, threadStatus, threadHistory, turnResult];
