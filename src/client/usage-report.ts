// The spend report behind `durable-agents usage`: closed runs' cost by agent, model and day, from visibility.
import { visibilityString } from './visibility-quote';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { AgentRunResult } from '../protocol/run-types';
import type { ThreadResult } from '../protocol/thread-types';
import { roundUsd } from '../protocol/model-price';
import { AgentCostUsdAttribute, AgentNameAttribute } from '../protocol/search-attributes';

/** How `usageReport` groups runs: by agent (`AgentName`), by model (reads results), or by day (UTC, of the close time). */
export type UsageGrouping = 'agent' | 'model' | 'day';

/** What `usageReport` reads. */
export interface UsageReportOptions {
  /** Runs that closed at or after this time. */
  since: Date;
  /** Only runs of this agent (the agent that gave the answer, after handoffs). */
  agent?: string;
  by: UsageGrouping;
  /** Result reads in flight at once for `by: 'model'`. Default: 8. */
  concurrency?: number;
}

/** One group of the report. */
export interface UsageRow {
  key: string;
  /** Runs (or, by model, runs that used the model). */
  runs: number;
  costUsd: number;
  /** Calls whose price was unknown (by model only: visibility does not hold the count). */
  unpricedCalls?: number;
}

/** The report: its rows, most expensive first, and the total over all runs counted. */
export interface UsageReport {
  since: string;
  by: UsageGrouping;
  runs: number;
  costUsd: number;
  rows: UsageRow[];
}

/**
 * The visibility query of the runs a report counts: closed agent runs and threads with
 * `AgentCostUsd`, not sub-agents (their cost is in their parent's) and not executions that
 * continued as new (the last execution of a chain carries the whole chain's cost).
 */
export function usageQuery(options: Pick<UsageReportOptions, 'since' | 'agent'>): string {
  const quote = visibilityString;
  const clauses = [
    `${AgentCostUsdAttribute.name} >= 0`,
    'ParentWorkflowId IS NULL',
    `ExecutionStatus != 'Running'`,
    `ExecutionStatus != 'ContinuedAsNew'`,
    `CloseTime >= ${quote(options.since.toISOString())}`,
  ];
  if (options.agent) clauses.push(`${AgentNameAttribute.name} = ${quote(options.agent)}`);
  return clauses.join(' AND ');
}

/**
 * The spend of closed runs since `since`, grouped. By agent and by day it reads visibility alone
 * (one paged list call, whatever the runs' length), so it scales with the number of runs, not
 * their histories; by model it also reads each run's result (its close event: one small read per
 * run, `concurrency` at a time), so keep the window bounded. Runs that failed have no result: by
 * model their cost shows under `(no result)`.
 * @example
 * const report = await usageReport(client.temporal, { since: new Date(Date.now() - 7 * 86_400_000), by: 'agent' });
 * for (const row of report.rows) console.log(row.key, row.runs, row.costUsd);
 */
export async function usageReport(temporal: Client, options: UsageReportOptions): Promise<UsageReport> {
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of temporal.workflow.list({ query: usageQuery(options) })) executions.push(execution);
  const rows = new Map<string, UsageRow>();
  const add = (key: string, costUsd: number, unpricedCalls?: number) => {
    const row = rows.get(key) ?? { key, runs: 0, costUsd: 0, ...(options.by === 'model' ? { unpricedCalls: 0 } : {}) };
    row.runs++;
    row.costUsd = roundUsd(row.costUsd + costUsd);
    if (unpricedCalls !== undefined) row.unpricedCalls = (row.unpricedCalls ?? 0) + unpricedCalls;
    rows.set(key, row);
  };
  const costOf = (execution: WorkflowExecutionInfo) => execution.typedSearchAttributes.get(AgentCostUsdAttribute) ?? 0;
  if (options.by === 'model') {
    await inBatches(executions, options.concurrency ?? 8, async (execution) => {
      const usage = await resultUsage(temporal, execution);
      if (!usage) return add('(no result)', costOf(execution));
      for (const [model, used] of Object.entries(usage.byModel)) add(model, used.costUsd ?? 0, used.unpricedCalls ?? 0);
    });
  } else {
    for (const execution of executions) {
      add(
        options.by === 'agent'
          ? (execution.typedSearchAttributes.get(AgentNameAttribute) ?? '(no agent)')
          : (execution.closeTime ?? execution.startTime).toISOString().slice(0, 10),
        costOf(execution),
      );
    }
  }
  return {
    since: options.since.toISOString(),
    by: options.by,
    runs: executions.length,
    costUsd: roundUsd(executions.reduce((sum, execution) => sum + costOf(execution), 0)),
    rows: [...rows.values()].sort((left, right) => right.costUsd - left.costUsd || left.key.localeCompare(right.key)),
  };
}

/** A closed run's (or thread's) usage from its result: `result()` of a closed execution reads its close event only. */
async function resultUsage(temporal: Client, execution: WorkflowExecutionInfo): Promise<AgentRunResult['usage'] | null> {
  try {
    const result = await temporal.workflow.getHandle(execution.workflowId, execution.runId, { followRuns: false }).result();
    return (result as AgentRunResult | ThreadResult | null)?.usage ?? null;
  } catch {
    // Failed, terminated, timed out: no result to read.
    return null;
  }
}

async function inBatches<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(work));
}
