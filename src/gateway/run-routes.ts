// The gateway's run routes: start a run (by agent name or inline config), read its status and result, inject, cancel.
import { WorkflowFailedError } from '@temporalio/client';
import type { AgentConfigInput } from '../config/agent-config';
import type { AgentOverrides } from '../protocol/agent-reference';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import { checkedBody } from './gateway-body';
import { requireAgent } from './gateway-auth';
import { agentNamed, findExecution, type GatewayRoute, type RouteContext } from './gateway-route';
import { injectBody, startRunBody } from './gateway-schemas';
import { resumePositionOf, uiStreamReply } from './streams/turn-streams';

/** How long a status read waits for a worker to answer the run's query before answering without it. */
const STATUS_WAIT_MS = 5_000;

const startRun: GatewayRoute = {
  method: 'POST',
  path: '/v1/runs',
  name: 'startRun',
  summary: 'Start a run of a named agent (`agent`) or an inline config (`config`)',
  scope: 'start',
  body: startRunBody,
  responses: { 201: 'Started: { workflowId, runId, webUiUrl }' },
  async handle(context) {
    const body = checkedBody(startRunBody, context.body);
    requireAgent(context.principal, agentNamed(body));
    const run = await context.agents.startRun({
      ...(body.agent !== undefined ? { agent: body.agent } : {}),
      ...(body.config !== undefined ? { config: body.config as AgentConfigInput } : {}),
      ...(body.agents !== undefined ? { agents: body.agents as Record<string, AgentConfigInput> } : {}),
      ...(body.overrides !== undefined ? { overrides: body.overrides as AgentOverrides } : {}),
      task: body.task,
      ...(body.workflowId !== undefined ? { workflowId: body.workflowId } : {}),
      ...(body.resourceId !== undefined ? { resourceId: body.resourceId } : {}),
    });
    const runId = (run.workflow as { firstExecutionRunId?: string }).firstExecutionRunId ?? null;
    return { status: 201, body: { workflowId: run.workflowId, runId, webUiUrl: run.webUiUrl } };
  },
};

const runStatus: GatewayRoute = {
  method: 'GET',
  path: '/v1/runs/:id',
  name: 'getRun',
  summary: "A run's execution state and, when a worker answers, its status (phase, step, usage, pending approvals)",
  scope: 'read',
  responses: { 200: '{ workflowId, runId, agent, execution, status | null }' },
  async handle(context) {
    const found = await findExecution(context, context.params.id!, 'run');
    const run = context.agents.getRun(found.description.workflowId);
    const status = await context.agents.temporal.withDeadline(Date.now() + STATUS_WAIT_MS, () => run.status()).catch(() => null);
    return {
      status: 200,
      body: {
        workflowId: found.description.workflowId,
        runId: found.description.runId,
        agent: found.agent,
        execution: found.description.status.name.toLowerCase(),
        status,
      },
    };
  },
};

const runResult: GatewayRoute = {
  method: 'GET',
  path: '/v1/runs/:id/result',
  name: 'getRunResult',
  summary: "A run's result once it has ended; 202 while it runs (poll again)",
  scope: 'read',
  responses: {
    200: '{ workflowId, execution: completed, result } or { workflowId, execution: failed | cancelled | terminated | timed_out, error: { code, message } }',
    202: '{ workflowId, execution: running }: no result yet',
  },
  async handle(context) {
    const found = await findExecution(context, context.params.id!, 'run');
    const workflowId = found.description.workflowId;
    if (found.running) return { status: 202, body: { workflowId, execution: 'running' } };
    try {
      const result = await context.agents.getRun(workflowId).result();
      return { status: 200, body: { workflowId, execution: 'completed', result } };
    } catch (error) {
      if (!(error instanceof WorkflowFailedError)) throw error;
      const cause = error.cause as { type?: string; message?: string } | undefined;
      const code = cause?.type ?? cause?.constructor.name ?? 'WorkflowFailed';
      const execution = found.description.status.name.toLowerCase();
      return { status: 200, body: { workflowId, execution, error: { code, message: cause?.message ?? error.message } } };
    }
  },
};

/** The run `id`, refusing a thread and a run that has ended (nothing to cancel or inject into). */
async function openRun(context: RouteContext): Promise<string> {
  const found = await findExecution(context, context.params.id!, 'run');
  if (!found.running)
    throw new GatewayError(
      409,
      GatewayErrorCode.runClosed,
      `Run '${found.description.workflowId}' has ended (${found.description.status.name.toLowerCase()})`,
      {
        field: 'id',
      },
    );
  return found.description.workflowId;
}

const cancelRun: GatewayRoute = {
  method: 'POST',
  path: '/v1/runs/:id/cancel',
  name: 'cancelRun',
  summary: 'Ask a running run to cancel (its running activities are cancelled, then it ends as cancelled)',
  scope: 'start',
  responses: { 202: 'Cancellation requested: { workflowId, cancelRequested: true }' },
  async handle(context) {
    const workflowId = await openRun(context);
    await context.agents.getRun(workflowId).workflow.cancel();
    return { status: 202, body: { workflowId, cancelRequested: true } };
  },
};

const injectIntoRun: GatewayRoute = {
  method: 'POST',
  path: '/v1/runs/:id/messages',
  name: 'injectMessage',
  summary: 'Add a user message to a running run, read before its next model call (durable: a signal)',
  scope: 'send',
  body: injectBody,
  responses: { 202: 'Queued: { workflowId, queued: true }' },
  async handle(context) {
    const { text } = checkedBody(injectBody, context.body);
    const workflowId = await openRun(context);
    await context.agents.getRun(workflowId).inject(text);
    return { status: 202, body: { workflowId, queued: true } };
  },
};

/** The run routes, in the order the OpenAPI document lists them. */
const runStream: GatewayRoute = {
  method: 'GET',
  path: '/v1/runs/:id/stream',
  name: 'streamRun',
  streams: true,
  summary:
    'A run as a UI message stream (SSE) until it ends, approvals included; `Last-Event-ID` continues after the last event a client had, on any gateway. An ended run is replayed from its log, then the stream closes',
  scope: 'read',
  query: { lastEventId: 'Continue after this event id (as the `Last-Event-ID` header)' },
  responses: { 200: 'A UI message stream of the run' },
  async handle(context) {
    const found = await findExecution(context, context.params.id!, 'run');
    const workflowId = found.description.workflowId;
    const resume = resumePositionOf(context);
    return uiStreamReply(context, { workflowId, scope: { kind: 'run' }, messageId: workflowId, resume, endAtApprovalWait: false });
  },
};

export const runRoutes: readonly GatewayRoute[] = [startRun, runStatus, runResult, runStream, cancelRun, injectIntoRun];
