import os from 'node:os';
import { formatDuration } from '../../shared/duration';
import { AgentClient, type DecisionReceipt } from '../agent-client';

/** `approvals`: every pending approval across running runs. */
export async function approvalsCommand(options: { json?: boolean }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const runs = await client.listPendingApprovals();
    if (options.json) {
      console.log(JSON.stringify(runs));
      return;
    }
    const now = Date.now();
    const rows = runs.flatMap((run) =>
      run.unreachable
        ? [[run.workflowId, '(no worker answered)', '', '', '', '']]
        : run.approvals.map((approval) => [
            run.workflowId,
            approval.approvalId,
            approval.toolName,
            JSON.stringify(approval.args),
            formatDuration(now - approval.requestedAt),
            approval.expiresAt > now ? `in ${formatDuration(approval.expiresAt - now)}` : 'now',
          ]),
    );
    if (rows.length === 0) {
      console.log('No pending approvals.');
      return;
    }
    printTable([['RUN', 'APPROVAL', 'TOOL', 'ARGUMENTS', 'AGE', 'EXPIRES'], ...rows]);
  } finally {
    if (!agents) await client.close();
  }
}

export interface DecisionOptions {
  reason?: string;
  by?: string;
  json?: boolean;
}

/** `approve RUN APPROVAL_ID` / `reject RUN APPROVAL_ID --reason`. */
export async function decisionCommand(
  decision: 'approve' | 'reject',
  workflowId: string,
  approvalId: string,
  options: DecisionOptions,
  agents?: AgentClient,
): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const decidedBy = options.by ?? process.env.USER ?? os.userInfo().username;
    const receipt = await client.getRun(workflowId).decide({ approvalId, decision, reason: options.reason, decidedBy });
    console.log(options.json ? JSON.stringify(receipt) : describeReceipt(workflowId, receipt));
  } finally {
    if (!agents) await client.close();
  }
}

function describeReceipt(workflowId: string, receipt: DecisionReceipt): string {
  if (receipt.delivery === 'update') return `${receipt.approvalId} in ${workflowId}: ${receipt.outcome}.`;
  return (
    `No worker is running ${workflowId} right now. The decision on ${receipt.approvalId} was sent as a signal and is ` +
    'recorded in its history; it applies when a worker runs it (an unknown, decided or expired id is then ignored and logged).'
  );
}

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, column) => Math.min(60, Math.max(...rows.map((row) => (row[column] ?? '').length))));
  for (const row of rows) {
    console.log(row.map((cell, column) => (cell.length > widths[column]! ? `${cell.slice(0, widths[column]! - 1)}…` : cell.padEnd(widths[column]!))).join('  '));
  }
}
