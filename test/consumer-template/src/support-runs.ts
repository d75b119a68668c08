import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { AgentConfigError, parseAgentConfig, type AgentClient, type AgentConfigInput, type AgentRunResult, type RunHandle } from 'durable-agents';
import type { SupportCaseResult, supportCase } from './workflows.js';

/** What the client saw of an agent run whose refund a person approved (from code). */
export interface ApprovedRefund {
  workflowId: string;
  approvalId: string;
  pendingTool: string;
  delivery: string;
  output: string;
  stopReason: string;
  tools: Array<{ name: string; approvalStatus: string; content: string }>;
}

/**
 * Starts an agent whose `refund` tool needs approval, waits until the call waits for it, approves
 * it and returns what the run answered.
 */
export async function approveRefund(agents: AgentClient, modelScript: string): Promise<ApprovedRefund> {
  const config: AgentConfigInput = {
    name: 'support',
    model: `scripted:${modelScript}`,
    tools: ['lookup_order', 'refund'],
    hitl_tools: ['refund'],
  };
  const run = await agents.startRun({ config, task: 'Order 42 arrived broken: please refund it.' });
  const pending = await firstPendingApproval(run, 60_000);
  const receipt = await run.approve(pending.approvalId, { reason: 'within the refund policy', decidedBy: 'consumer-client' });
  const result: AgentRunResult = await run.result();
  return {
    workflowId: run.workflowId,
    approvalId: pending.approvalId,
    pendingTool: pending.toolName,
    delivery: receipt.delivery,
    output: result.output,
    stopReason: result.stopReason,
    tools: result.toolResults.map((tool) => ({ name: tool.toolName, approvalStatus: tool.metadata.approval_status, content: tool.content })),
  };
}

async function firstPendingApproval(run: RunHandle, timeoutMs: number): Promise<{ approvalId: string; toolName: string }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [pending] = (await run.status()).pendingApprovals;
    if (pending) return pending;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no approval was requested in ${run.workflowId} within ${timeoutMs} ms`);
}

/** Runs this project's own `supportCase` workflow with a plain Temporal client. */
export function runSupportCase(client: Client, taskQueue: string, modelScript: string): Promise<SupportCaseResult> {
  return client.workflow.execute<typeof supportCase>('supportCase', {
    taskQueue,
    workflowId: `support-case-${randomUUID()}`,
    args: [{ task: 'Where is order 7?', modelScript }],
  });
}

/** An invalid config is refused before anything starts, with a stable code and the field named. */
export function invalidConfigError(): { code: string; problems: string[] } | null {
  try {
    parseAgentConfig({ name: 'support', model: 'gpt-4o' });
    return null;
  } catch (error) {
    if (!(error instanceof AgentConfigError)) throw error;
    return { code: error.code, problems: error.problems };
  }
}
