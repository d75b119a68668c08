// The gateway's approval routes (pending approvals across runs and threads; a decision as the caller) and the agents list.
import { decideApproval } from '../console/console-actions';
import { readInbox } from '../console/console-reads';
import { ErrorCode } from '../protocol/errors';
import { mayUseAgent } from './gateway-auth';
import { checkedBody } from './gateway-body';
import { GatewayError, GatewayErrorCode } from './gateway-errors';
import { findExecution, type GatewayRoute } from './gateway-route';
import { decisionBody } from './gateway-schemas';

const listApprovals: GatewayRoute = {
  method: 'GET',
  path: '/v1/approvals',
  name: 'listApprovals',
  summary: 'Pending approvals across running runs and threads (those of agents the caller may use), oldest first',
  scope: 'read',
  query: { agent: 'Only calls of runs and threads of this agent', tool: 'Only calls of this tool' },
  responses: {
    200: '{ approvals: [{ workflowId, runId, kind, agent, approvalId, toolName, args, step, requestedAt, expiresAt, ... }], unreachable: [{ workflowId, kind, agent }] }',
  },
  async handle(context) {
    const agent = context.query.get('agent');
    const tool = context.query.get('tool');
    const inbox = await readInbox(context.agents);
    const wanted = (name: string | null) => mayUseAgent(context.principal, name) && (agent === null || name === agent);
    const approvals = inbox.items
      .filter((item) => wanted(item.run.agent) && (tool === null || item.approval.toolName === tool))
      .map(({ run, approval }) => ({ workflowId: run.workflowId, runId: run.runId, kind: run.kind, agent: run.agent, ...approval }));
    const unreachable = inbox.unreachable
      .filter((run) => wanted(run.agent))
      .map((run) => ({ workflowId: run.workflowId, kind: run.kind, agent: run.agent }));
    return { status: 200, body: { approvals, unreachable } };
  },
};

const decide: GatewayRoute = {
  method: 'POST',
  path: '/v1/approvals/:runId/:approvalId',
  name: 'decideApproval',
  summary:
    "Approve or reject a gated tool call as the caller (the key's principal). Idempotent: the same decision again answers the same; a decision someone else made first answers 409 naming them",
  scope: 'approve',
  body: decisionBody,
  responses: {
    200: '{ workflowId, approvalId, decision, outcome, decidedBy, message }: applied (or recorded for when a worker runs the run)',
    403: 'DecisionUnverified: the agent requires verified decisions and the workers refused this one (the message says why: no decision key on the gateway, or one they do not trust)',
    409: 'AlreadyDecided: someone else (or the timeout) decided first; `decidedBy` and `outcome` say who and how',
  },
  async handle(context) {
    if (context.body !== null && typeof context.body === 'object' && 'decidedBy' in context.body)
      throw new GatewayError(
        400,
        GatewayErrorCode.invalidRequest,
        'decidedBy: not accepted; the decider is the principal of the API key that sends the decision',
        { field: 'decidedBy' },
      );
    const { decision, reason } = checkedBody(decisionBody, context.body);
    const found = await findExecution(context, context.params.runId!);
    const workflowId = found.description.workflowId;
    const approvalId = context.params.approvalId!;
    const identity = context.principal.name;
    const signingKey = context.decisionKey;
    const result = await decideApproval(context.agents, context.access.approvers, {
      workflowId,
      approvalId,
      decision,
      reason,
      identity,
      via: 'http',
      ...(signingKey ? { signingKey } : {}),
    });
    const expected = decision === 'approve' ? 'approved' : 'rejected';
    const applied = { workflowId, approvalId, decision, outcome: expected, decidedBy: identity, message: result.message };
    if (result.ok) return { status: 200, body: applied };
    // A retried POST (this principal's own decision landed already) answers as the first did.
    if (result.httpStatus === 409 && result.decidedBy === identity && result.outcome === expected)
      return { status: 200, body: { ...applied, message: `${approvalId} ${expected} by ${identity}.` } };
    if (result.code === ErrorCode.decisionUnverified) throw new GatewayError(403, result.code, result.message, { field: 'approvalId' });
    throw decisionError(result.httpStatus, result.message, result.decidedBy, result.outcome, result.decidedVia);
  },
};

function decisionError(
  status: number,
  message: string,
  decidedBy: string | null | undefined,
  outcome: string | undefined,
  decidedVia: string | null | undefined,
): GatewayError {
  if (status === 409 && outcome !== undefined)
    return new GatewayError(409, GatewayErrorCode.alreadyDecided, message, { decidedBy: decidedBy ?? null, decidedVia: decidedVia ?? null, outcome });
  if (status === 409) return new GatewayError(503, ErrorCode.workersUnavailable, message);
  if (status === 403) return new GatewayError(403, GatewayErrorCode.forbidden, message, { field: 'approvalId' });
  if (status === 404) return new GatewayError(404, GatewayErrorCode.approvalNotFound, message, { field: 'approvalId' });
  if (status === 400) return new GatewayError(400, GatewayErrorCode.invalidRequest, message);
  return new GatewayError(500, GatewayErrorCode.internal, message);
}

const listAgents: GatewayRoute = {
  method: 'GET',
  path: '/v1/agents',
  name: 'listAgents',
  summary: "The named, versioned agents the task queue's workers offer (those the caller may use)",
  scope: 'read',
  responses: { 200: '{ agents: [{ name, version, label?, config summary ... }] }' },
  async handle(context) {
    const offers = await context.agents.listAgents();
    return { status: 200, body: { agents: offers.filter((offer) => mayUseAgent(context.principal, offer.name)) } };
  },
};

/** The approval routes and the agents list, in the order the OpenAPI document lists them. */
export const approvalRoutes: readonly GatewayRoute[] = [listApprovals, decide, listAgents];
