import os from 'node:os';
import { formatDuration } from '../../config/duration';
import { describeCallDecider } from '../../protocol/call-deciders';
import { AgentClient, type PendingApprovals, type DecisionReceipt, type DecisionRetries } from '../../client/agent-client';

/**
 * `approvals`: every pending approval across running runs, with what a human needs to decide: the
 * arguments, the injected ones (the model's stated reasoning, a request id, ...) and the deadline.
 */
export async function approvalsCommand(options: { json?: boolean }, agents?: AgentClient): Promise<void> {
  const client = agents ?? (await AgentClient.connect());
  try {
    const runs = await client.listPendingApprovals();
    console.log(options.json ? JSON.stringify(runs) : formatPendingApprovals(runs, Date.now()));
  } finally {
    if (!agents) await client.close();
  }
}

/** The `approvals` table, then each approval's injected arguments in full and what required it (they are what a human reads). */
export function formatPendingApprovals(runs: PendingApprovals[], now: number): string {
  const rows = runs.flatMap((run) =>
    run.unreachable
      ? [[run.workflowId, '(no worker answered)', '', '', '', '', '']]
      : run.approvals.map((approval) => [
          run.workflowId,
          approval.approvalId,
          approval.toolName,
          JSON.stringify(approval.args),
          Object.keys(approval.injectedArgs).join(', '),
          formatDuration(now - approval.requestedAt),
          approval.expiresAt > now ? `in ${formatDuration(approval.expiresAt - now)}` : 'now',
        ]),
  );
  if (rows.length === 0) return 'No pending approvals.';
  const lines = tableLines([['RUN', 'APPROVAL', 'TOOL', 'ARGUMENTS', 'INJECTED', 'AGE', 'EXPIRES'], ...rows]);
  for (const run of runs) {
    for (const approval of run.approvals) {
      const injected = Object.entries(approval.injectedArgs);
      if (injected.length === 0 && !approval.requiredBy) continue;
      lines.push('', `${approval.approvalId} in ${run.workflowId} (${approval.toolName}, expires ${new Date(approval.expiresAt).toISOString()}):`);
      // Why it waits besides hitl_tools: the hook and the tool-policy rule that asked (docs/hooks.md, docs/tool-policies.md).
      for (const decider of approval.requiredBy ?? []) lines.push(`  required by ${describeCallDecider(decider)}`);
      for (const [name, value] of injected) lines.push(`  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    }
  }
  return lines.join('\n');
}

export interface DecisionOptions {
  reason?: string;
  by?: string;
  json?: boolean;
}

/**
 * `approve RUN APPROVAL_ID` / `reject RUN APPROVAL_ID --reason`. Transient server errors (a
 * restarting server, "Workflow is busy") are retried for up to 60 s, and the output says so.
 */
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
    const receipt = await client.getRun(workflowId).decide({ approvalId, decision, reason: options.reason, decidedBy, via: 'cli' });
    console.log(options.json ? JSON.stringify(receipt) : describeReceipt(workflowId, receipt));
  } finally {
    if (!agents) await client.close();
  }
}

function describeReceipt(workflowId: string, receipt: DecisionReceipt): string {
  const delivered =
    receipt.delivery === 'update'
      ? `${receipt.approvalId} in ${workflowId}: ${receipt.outcome}.`
      : `No worker is running ${workflowId} right now. The decision on ${receipt.approvalId} was sent as a signal and is ` +
        'recorded in its history; it applies when a worker runs it (an unknown, decided or expired id is then ignored and logged).';
  return receipt.retries ? `${describeRetries(receipt.retries)}\n${delivered}` : delivered;
}

/** "server busy, retried 3 times in 4.2 s (server unavailable ×2, server busy)". */
export function describeRetries(retries: DecisionRetries): string {
  const counts = new Map<string, number>();
  for (const reason of retries.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const why = [...counts].map(([reason, count]) => (count > 1 ? `${reason} ×${count}` : reason)).join(', ');
  const times = retries.count === 1 ? 'once' : `${retries.count} times`;
  return `${retries.reasons.at(-1) ?? 'server error'}, retried ${times} in ${formatDuration(retries.elapsedMs)} (${why}).`;
}

function tableLines(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.min(60, Math.max(...rows.map((row) => (row[column] ?? '').length))));
  return rows.map((row) =>
    row
      .map((cell, column) => (cell.length > widths[column]! ? `${cell.slice(0, widths[column]! - 1)}…` : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}
