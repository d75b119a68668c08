// `usage`: what closed agent runs cost, by agent, model or day, from visibility (and results, by model).
import { AgentClient } from '../../client/agent-client';
import { usageReport, type UsageGrouping, type UsageReport } from '../../client/usage-report';
import { isDuration, parseDuration } from '../../config/duration';
import { AgentConfigError } from '../../protocol/errors';
import { formatUsd } from '../../protocol/model-price';

const GROUPINGS: readonly UsageGrouping[] = ['agent', 'model', 'day'];

export interface UsageCommandOptions {
  /** A duration back from now (`24h`, `7d`). Default: 7d. */
  since?: string;
  agent?: string;
  by?: string;
  json?: boolean;
}

/** `usage [--since 7d] [--agent NAME] [--by agent|model|day] [--json]`; a bad option is a user error (exit code 2) naming it. */
export async function usageCommand(options: UsageCommandOptions, agents?: AgentClient, now = Date.now()): Promise<void> {
  const since = options.since ?? '7d';
  const by = (options.by ?? 'agent') as UsageGrouping;
  const problems = [
    ...(isDuration(since) ? [] : [`--since: must be a duration such as 24h or 7d (got '${since}')`]),
    ...(GROUPINGS.includes(by) ? [] : [`--by: must be one of ${GROUPINGS.join(', ')} (got '${options.by}')`]),
  ];
  if (problems.length > 0) throw new AgentConfigError(`Invalid usage options:\n  ${problems.join('\n  ')}`, problems);
  const client = agents ?? (await AgentClient.connect());
  try {
    const report = await usageReport(client.temporal, {
      since: new Date(now - parseDuration(since)),
      by,
      ...(options.agent ? { agent: options.agent } : {}),
    });
    console.log(options.json ? JSON.stringify(report) : formatUsageReport(report));
  } finally {
    if (!agents) await client.close();
  }
}

/** The report as a table: one row per group, then the total. */
export function formatUsageReport(report: UsageReport): string {
  const header = [report.by, 'runs', 'cost (USD)', ...(report.by === 'model' ? ['unpriced calls'] : [])];
  const body = report.rows.map((row) => [
    row.key,
    String(row.runs),
    formatUsd(row.costUsd),
    ...(report.by === 'model' ? [String(row.unpricedCalls ?? 0)] : []),
  ]);
  const table = [header, ...body, ['total', String(report.runs), formatUsd(report.costUsd), ...(report.by === 'model' ? [''] : [])]];
  const widths = header.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  const lines = table.map((cells) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
  return [`Closed runs since ${report.since} (sub-agents in their parents; a handed-off run under its last agent):`, ...lines].join('\n');
}
