// The console's approval routes: an approval's own page, deciding one call, and deciding a step's calls together.
import type { Context, Hono } from 'hono';
import type { AgentClient } from '../client/agent-client';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import type { ApproverRule } from './console-access';
import { CONFIRMATION_REQUIRED, decideApproval, type ActionResult } from './console-actions';
import { readApproval } from './approval-reads';
import { decideStep } from './step-decisions';
import type { Viewer } from './pages/approval-card';
import { approvalContent, confirmContent, errorContent } from './pages/approval-page';
import type { Html, PageFrame } from './pages/page-layout';

type Env = { Variables: { identity: string } };
type AppContext = Context<Env>;

/** What the routes need from the app around them. */
export interface ApprovalRouteDeps {
  agents: AgentClient;
  approvers: readonly ApproverRule[] | undefined;
  decisionKey: DecisionSigningKey | undefined;
  viewer: (context: AppContext) => Viewer;
  render: (
    context: AppContext,
    title: string,
    section: PageFrame['section'],
    content: Html,
    streamUrl?: string,
    status?: 200 | 404 | 409,
  ) => Response | Promise<Response>;
  respond: (context: AppContext, result: ActionResult, back: string) => Response | Promise<Response>;
}

/** Adds the approval routes to `app` (`/approvals/<workflowId>/<approvalId>`, and the decisions' POSTs). */
export function addApprovalRoutes(app: Hono<Env>, deps: ApprovalRouteDeps): void {
  const { agents, approvers } = deps;
  app.get('/approvals/:id/:approvalId', async (context) => {
    const workflowId = context.req.param('id');
    const approvalId = context.req.param('approvalId');
    const view = await readApproval(agents, workflowId, approvalId);
    if (!view)
      return deps.render(
        context,
        'Approval not found',
        'inbox',
        errorContent(
          'Approval not found',
          `No approval ${approvalId} in a run or thread ${workflowId} of this namespace (or no worker answers for it).`,
        ),
        undefined,
        404,
      );
    const title = `Approval of ${view.approval.toolName} in ${workflowId}`;
    return deps.render(
      context,
      title,
      'inbox',
      approvalContent(view, deps.viewer(context), Date.now()),
      `/runs/${encodeURIComponent(workflowId)}/stream`,
    );
  });

  app.post('/runs/:id/approvals/:approvalId', async (context) => {
    const workflowId = context.req.param('id');
    const approvalId = context.req.param('approvalId');
    const form = await fields(context);
    const back = `/approvals/${encodeURIComponent(workflowId)}/${encodeURIComponent(approvalId)}`;
    if (form.decision !== 'approve' && form.decision !== 'reject')
      return deps.respond(context, { ok: false, httpStatus: 400, message: 'decision: must be approve or reject' }, back);
    const result = await decideApproval(agents, approvers, { workflowId, approvalId, ...decisionOf(context, form, deps) });
    return confirmOrRespond(context, deps, result, back, form);
  });

  app.post('/runs/:id/steps/:step/decisions', async (context) => {
    const workflowId = context.req.param('id');
    const step = Number(context.req.param('step'));
    const form = await fields(context);
    const back = `/runs/${encodeURIComponent(workflowId)}`;
    const approvalIds = form.approvalIds.split(',').filter((id) => id !== '');
    if (!Number.isInteger(step) || step < 1 || approvalIds.length === 0)
      return deps.respond(context, { ok: false, httpStatus: 400, message: 'step and approvalIds: name a step and its calls' }, back);
    if (form.decision !== 'approve' && form.decision !== 'reject')
      return deps.respond(context, { ok: false, httpStatus: 400, message: 'decision: must be approve or reject' }, back);
    const result = await decideStep(agents, approvers, { workflowId, step, approvalIds, ...decisionOf(context, form, deps) });
    return confirmOrRespond(context, deps, result, back, form);
  });
}

interface DecisionForm {
  decision: string;
  reason: string;
  confirmed: boolean;
  approvalIds: string;
  csrf: string;
}

async function fields(context: AppContext): Promise<DecisionForm> {
  const body = await context.req.parseBody();
  const text = (name: string) => (typeof body[name] === 'string' ? body[name].trim() : '');
  return {
    decision: text('decision'),
    reason: text('reason'),
    confirmed: text('confirmed') === 'yes',
    approvalIds: text('approvalIds'),
    csrf: text('csrf'),
  };
}

function decisionOf(context: AppContext, form: DecisionForm, deps: ApprovalRouteDeps) {
  return {
    decision: form.decision as 'approve' | 'reject',
    reason: form.reason || undefined,
    identity: context.get('identity'),
    confirmed: form.confirmed,
    ...(deps.decisionKey ? { signingKey: deps.decisionKey } : {}),
  };
}

/** A browser without the script is asked to confirm on a page of its own; everything else gets the result. */
function confirmOrRespond(context: AppContext, deps: ApprovalRouteDeps, result: ActionResult, back: string, form: DecisionForm) {
  const wantsJson = (context.req.header('accept') ?? '').includes('application/json');
  if (result.code !== CONFIRMATION_REQUIRED || wantsJson) return deps.respond(context, result, back);
  const action = new URL(context.req.url).pathname;
  const content = confirmContent(action, result.message, {
    csrf: form.csrf || deps.viewer(context).csrf,
    reason: form.reason,
    approvalIds: form.approvalIds,
  });
  return deps.render(context, 'Confirm the approval', 'inbox', content, undefined, 409);
}
