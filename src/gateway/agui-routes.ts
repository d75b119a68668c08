// The AG-UI endpoints: `HttpAgent` (and CopilotKit) post a RunAgentInput and read a thread's turn, or a one-shot run, as AG-UI events.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { z } from 'zod';
import { receiptStartsInside } from './chat-routes';
import { requireAgent } from './gateway-auth';
import { checkedBody } from './gateway-body';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import { findExecution, type GatewayRoute, type RouteContext, type RouteReply } from './gateway-route';
import { aguiBody, aguiReply, creatingFields, decideInterrupts, lastUserMessage, resumePosition, type AguiInput } from './agui-input';
import type { AguiStreamOptions } from './streams/agui-stream';
import { sendThreadMessage } from './thread-routes';

/** Where an interrupted turn stopped, from the state its AG-UI run left on the client. */
const turnResumeState = z.looseObject({
  turn: z.number().int().min(1),
  afterSeq: z.number().int().min(0),
  resumeAfter: z.number().int().min(0),
});

/** Where an interrupted run stopped. */
const runResumeState = z.looseObject({ resumeAfter: z.number().int().min(0) });

/** An AG-UI route's 200 answer, as the OpenAPI document states it. */
function aguiAnswers(what: 'turn' | 'run', result: string): Record<number, string> {
  return {
    200: `AG-UI events (SSE) of the ${what}, until it completes (RUN_FINISHED${result}), waits for approvals (RUN_FINISHED with an interrupt) or fails (RUN_ERROR)`,
  };
}

const agui: GatewayRoute = {
  method: 'POST',
  path: '/v1/agui',
  name: 'agui',
  summary:
    "The AG-UI endpoint for threads (`new HttpAgent({ url: '/v1/agui?agent=…' })`): a user message starts or joins a turn of thread `threadId`; `resume` answers the approval interrupts and continues the turn. Answers AG-UI events",
  scope: 'send',
  streams: true,
  body: aguiBody,
  query: { agent: 'Creating the thread: a named agent (or `forwardedProps.agent`)' },
  responses: aguiAnswers('turn', ''),
  async handle(context) {
    const input = checkedBody(aguiBody, context.body);
    if (input.resume?.length) return resumeTurn(context, input);
    const message = lastUserMessage(input);
    const turn = await sendThreadMessage(context, input.threadId, { text: message.text, messageId: message.id, ...creatingFields(context, input) });
    const { receipt } = turn;
    return aguiReply(context, input, {
      workflowId: input.threadId,
      scope: { kind: 'turn', turn: receipt.turn, afterSeq: receipt.eventCursor, injected: receiptStartsInside(receipt.disposition) },
      resumeAfter: null,
      decided: new Set(),
      outcome: turnOutcome(context, input.threadId),
    });
  },
};

/** Decides the answered interrupts as the caller's principal, then continues the turn where the interrupted AG-UI run stopped. */
async function resumeTurn(context: RouteContext, input: AguiInput): Promise<RouteReply> {
  const { turn, afterSeq, resumeAfter } = resumePosition(input, turnResumeState, 'turn, afterSeq, resumeAfter');
  await findExecution(context, input.threadId, 'thread');
  const decided = await decideInterrupts(context, input.threadId, input);
  return aguiReply(context, input, {
    workflowId: input.threadId,
    scope: { kind: 'turn', turn, afterSeq, injected: false },
    resumeAfter,
    decided,
    outcome: turnOutcome(context, input.threadId),
  });
}

/** A completed turn's RUN_FINISHED result (`{ turn, stopReason, output, usage, agentVersion }`), or its failure. */
function turnOutcome(context: RouteContext, threadId: string): AguiStreamOptions['outcome'] {
  return async (completed) => {
    const status = await context.agents
      .thread(threadId)
      .status()
      .catch(() => null);
    const turn = completed.type === 'turn-completed' ? completed.turn : null;
    const found = status?.recentTurns.find((candidate) => candidate.turn === turn);
    const result = {
      turn,
      stopReason: completed.stopReason,
      output: completed.output,
      ...(found ? { usage: found.usage, ...(found.agentVersion ? { agentVersion: found.agentVersion } : {}) } : {}),
    };
    return { result, failure: found?.failure ?? null };
  };
}

const aguiRun: GatewayRoute = {
  method: 'POST',
  path: '/v1/agui/runs',
  name: 'aguiRun',
  summary:
    "The AG-UI endpoint for one-shot runs (`new HttpAgent({ url: '/v1/agui/runs?agent=…' })`): the user's message is the task of a new run of the named agent, whose workflow id is `threadId`; `resume` answers the run's approval interrupts and continues it. Answers AG-UI events",
  scope: 'start',
  streams: true,
  body: aguiBody,
  query: { agent: 'The named agent to run (or `forwardedProps.agent`)' },
  responses: aguiAnswers('run', " with the run's result"),
  async handle(context) {
    const input = checkedBody(aguiBody, context.body);
    if (input.resume?.length) return resumeRun(context, input);
    const message = lastUserMessage(input);
    const { agent, resourceId } = creatingFields(context, input);
    if (agent === undefined)
      throw new GatewayError(400, GatewayErrorCode.invalidRequest, 'agent: name the agent to run (?agent= or forwardedProps.agent)', {
        field: 'agent',
      });
    requireAgent(context.principal, agent);
    const run = await context.agents
      .startRun({ agent, task: message.text, workflowId: input.threadId, ...(resourceId !== undefined ? { resourceId } : {}) })
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        throw new GatewayError(
          409,
          GatewayErrorCode.runAlreadyStarted,
          `A run with workflowId '${input.threadId}' is already running: resume it, or use a new threadId`,
          {
            field: 'threadId',
          },
        );
      });
    return aguiReply(context, input, {
      workflowId: run.workflowId,
      scope: { kind: 'run' },
      resumeAfter: null,
      decided: new Set(),
      outcome: runOutcome(context, run.workflowId),
    });
  },
};

/** Decides the answered interrupts of run `threadId` as the caller's principal, then continues the run after the last event sent. */
async function resumeRun(context: RouteContext, input: AguiInput): Promise<RouteReply> {
  const { resumeAfter } = resumePosition(input, runResumeState, 'resumeAfter');
  const found = await findExecution(context, input.threadId, 'run');
  const workflowId = found.description.workflowId;
  const decided = await decideInterrupts(context, workflowId, input);
  return aguiReply(context, input, { workflowId, scope: { kind: 'run' }, resumeAfter, decided, outcome: runOutcome(context, workflowId) });
}

/** A completed run's RUN_FINISHED result: the run's own result (`AgentRunResult`), or the completion event's fields if it cannot be read. */
function runOutcome(context: RouteContext, workflowId: string): AguiStreamOptions['outcome'] {
  return async (completed) => {
    const result = await context.agents
      .getRun(workflowId)
      .result()
      .catch(() => ({ stopReason: completed.stopReason, output: completed.output }));
    return { result: { workflowId, ...result }, failure: null };
  };
}

/** The AG-UI routes, in the order the OpenAPI document lists them. */
export const aguiRoutes: readonly GatewayRoute[] = [agui, aguiRun];
