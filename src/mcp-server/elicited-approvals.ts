// A run's pending approvals put to the MCP client as elicitations: its answer decided as the caller, withdrawn when another door decides first.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpError, ErrorCode as McpErrorCode, type ElicitRequestFormParams, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '../client/agent-client';
import { decideApproval } from '../console/console-actions';
import type { DecisionSigningKey } from '../decisions/decision-keys';
import type { GatewayAccess } from '../gateway/gateway-access';
import type { Principal } from '../gateway/gateway-auth';
import { MessageLimits } from '../protocol/message-validation';
import type { ApprovalRequest } from '../protocol/run-status-types';

/** The schema every approval elicitation asks for: a decision, and a reason the model sees. */
export const APPROVAL_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'], description: 'Run the tool call, or refuse it' },
    reason: { type: 'string', title: 'Reason', maxLength: MessageLimits.reason, description: 'Why (the agent sees it on a rejection)' },
  },
  required: ['decision'],
};

/** Longest a timer may wait in Node (about 24.8 days): a later expiry waits that long. */
const MAX_TIMER_MS = 2_147_483_647;

/** What deciding needs: who decides, under which rules, signed with which key. */
export interface DeciderContext {
  agents: AgentClient;
  access: GatewayAccess;
  principal: Principal;
  decisionKey?: DecisionSigningKey;
}

/** What became of one elicitation, for the call's progress notes. */
export type ElicitationOutcome =
  | { kind: 'decided'; approvalId: string; note: string }
  | { kind: 'left'; approvalId: string; note: string }
  | { kind: 'invalid'; approvalId: string; error: McpError };

/**
 * The elicitations of one tool call, one per pending approval. Each answer is decided through the
 * same path as the console and the gateway (`decideApproval`: approver rules, the run's update,
 * applied once), as the authenticated principal. A decline, a cancel or a timeout decides nothing:
 * the approval stays in the inbox. An answer the schema refuses decides nothing either and is
 * reported as `invalid` (the call then fails with that protocol error).
 */
export class ElicitedApprovals {
  private readonly open = new Map<string, AbortController>();

  constructor(
    private readonly server: Server,
    private readonly decider: DeciderContext,
    private readonly workflowId: string,
    private readonly relatedRequestId: RequestId,
    private readonly onOutcome: (outcome: ElicitationOutcome) => void,
  ) {}

  /** Asks the client about `request` (once per approval id). */
  ask(agent: string, request: ApprovalRequest): void {
    if (this.open.has(request.approvalId)) return;
    const controller = new AbortController();
    this.open.set(request.approvalId, controller);
    void this.elicit(agent, request, controller.signal).then(
      (outcome) => this.settle(request.approvalId, outcome),
      (error: unknown) => this.settle(request.approvalId, this.failed(request.approvalId, error, controller.signal)),
    );
  }

  /** Withdraws the elicitation of an approval another door decided (or that timed out). */
  withdraw(approvalId: string): void {
    this.open.get(approvalId)?.abort();
    this.open.delete(approvalId);
  }

  /** Withdraws every open elicitation (the call ended). */
  close(): void {
    for (const approvalId of [...this.open.keys()]) this.withdraw(approvalId);
  }

  private settle(approvalId: string, outcome: ElicitationOutcome | null): void {
    this.open.delete(approvalId);
    if (outcome) this.onOutcome(outcome);
  }

  private async elicit(agent: string, request: ApprovalRequest, signal: AbortSignal): Promise<ElicitationOutcome | null> {
    const timeout = Math.min(Math.max(request.expiresAt - Date.now(), 1_000), MAX_TIMER_MS);
    const answer = await this.server.elicitInput(
      {
        mode: 'form',
        message: `${agent} asks to call ${request.toolName} with ${JSON.stringify(request.args)} (approval ${request.approvalId} of ${this.workflowId}). Approve it?`,
        requestedSchema: APPROVAL_SCHEMA,
      },
      { signal, timeout, relatedRequestId: this.relatedRequestId },
    );
    const { approvalId } = request;
    if (signal.aborted) return null;
    if (answer.action !== 'accept' || !answer.content)
      return { kind: 'left', approvalId, note: `${approvalId}: ${answer.action}ed here; it waits in the approvals inbox` };
    const decision = answer.content.decision as 'approve' | 'reject';
    const reason = typeof answer.content.reason === 'string' && answer.content.reason !== '' ? answer.content.reason : undefined;
    const { agents, access, principal, decisionKey } = this.decider;
    const result = await decideApproval(agents, access.approvers, {
      workflowId: this.workflowId,
      approvalId,
      decision,
      reason: reason ?? (decision === 'reject' ? `rejected by ${principal.name}` : undefined),
      identity: principal.name,
      via: 'mcp',
      ...(decisionKey ? { signingKey: decisionKey } : {}),
    });
    return { kind: result.ok ? 'decided' : 'left', approvalId, note: result.message };
  }

  private failed(approvalId: string, error: unknown, signal: AbortSignal): ElicitationOutcome | null {
    if (signal.aborted) return null;
    // The SDK checks the answer against the requested schema: a refused answer decides nothing.
    if (error instanceof McpError && error.code === McpErrorCode.InvalidParams) return { kind: 'invalid', approvalId, error };
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'left', approvalId, note: `${approvalId}: no answer here (${message}); it waits in the approvals inbox` };
  }
}
