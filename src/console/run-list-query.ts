// The run list's filter: read from the page's query string (each bad value named), and turned into one visibility query.
import { visibilityString } from '../client/visibility-quote';
import { isDuration, parseDuration } from '../config/duration';
import { AgentEvaluationAttribute, AgentNameAttribute, AgentStatusAttribute } from '../protocol/search-attributes';
import { WireName } from '../protocol/wire-names';

/**
 * The statuses the run list filters by. Open runs by what the agent does (`AgentStatus`: `running`
 * is every open one), closed runs by how their execution ended (visibility's `ExecutionStatus`).
 */
export const RUN_LIST_STATUSES = {
  running: null,
  awaiting_approval: 'awaiting_approval',
  idle: 'idle',
  closed: null,
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
} as const;

/** One of the statuses of `RUN_LIST_STATUSES`. */
export type RunListStatus = keyof typeof RUN_LIST_STATUSES;

/** Which runs the run list shows. */
export interface RunListFilter {
  /** Workflow id prefix or agent name. */
  search?: string;
  status?: RunListStatus;
  kind?: 'run' | 'thread';
  /** The runs of one evaluation (`AgentEvaluation`): the list an evaluation run's origin links to. */
  evaluation?: string;
  /** Started at or after / before this time. */
  startedFrom?: Date;
  startedTo?: Date;
  /** Ran at least / at most this long (closed runs: start to close; open runs: so far). */
  minDurationMs?: number;
  maxDurationMs?: number;
  limit?: number;
}

/** The filter a page's query string asks for, and a line per value that is not valid (that value is left out). */
export function runListFilterFrom(query: (name: string) => string | undefined): { filter: RunListFilter; problems: string[] } {
  const problems: string[] = [];
  const filter: RunListFilter = { search: query('q') ?? '', limit: 100 };
  const status = query('status')?.trim().replace('-', '_');
  if (status) {
    if (status in RUN_LIST_STATUSES) filter.status = status as RunListStatus;
    else problems.push(`status: '${status}' is not one of ${Object.keys(RUN_LIST_STATUSES).join(', ')}`);
  }
  const kind = query('kind');
  if (kind === 'run' || kind === 'thread') filter.kind = kind;
  const evaluation = query('evaluation');
  if (evaluation) filter.evaluation = evaluation;
  for (const [name, key] of [
    ['from', 'startedFrom'],
    ['to', 'startedTo'],
  ] as const) {
    const text = query(name)?.trim();
    if (!text) continue;
    // The page shows UTC times, so a time without a zone (a datetime-local field) is UTC too.
    const at = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
    if (Number.isNaN(at.getTime())) problems.push(`${name}: '${text}' is not a time such as 2026-11-28T09:30 (UTC)`);
    else filter[key] = at;
  }
  for (const [name, key] of [
    ['min_duration', 'minDurationMs'],
    ['max_duration', 'maxDurationMs'],
  ] as const) {
    const text = query(name)?.trim();
    if (!text) continue;
    if (isDuration(text)) filter[key] = parseDuration(text);
    else problems.push(`${name}: '${text}' is not a duration such as 30s, 15m, 4h or 3d`);
  }
  return { filter, problems };
}

const quote = visibilityString;

/** The visibility query of the run list (values quoted, so a search cannot change the query); `now` places open runs' durations. */
export function runListQuery(filter: RunListFilter, now: number = Date.now()): string {
  const types =
    filter.kind === 'thread'
      ? [WireName.agentThreadWorkflow]
      : filter.kind === 'run'
        ? [WireName.agentRunWorkflow]
        : [WireName.agentRunWorkflow, WireName.agentThreadWorkflow];
  const clauses = [`WorkflowType IN (${types.map(quote).join(', ')})`];
  const search = filter.search?.trim();
  if (search) clauses.push(`(${AgentNameAttribute.name} = ${quote(search)} OR WorkflowId STARTS_WITH ${quote(search)})`);
  clauses.push(...statusClauses(filter.status));
  if (filter.evaluation) clauses.push(`${AgentEvaluationAttribute.name} = ${quote(filter.evaluation)}`);
  if (filter.startedFrom) clauses.push(`StartTime >= ${quote(filter.startedFrom.toISOString())}`);
  if (filter.startedTo) clauses.push(`StartTime <= ${quote(filter.startedTo.toISOString())}`);
  // Visibility has ExecutionDuration (nanoseconds) for closed executions only: an open one's is since its start.
  const openFor = (ms: number, compare: '<=' | '>=') =>
    `(ExecutionStatus = 'Running' AND StartTime ${compare} ${quote(new Date(now - ms).toISOString())})`;
  if (filter.minDurationMs !== undefined)
    clauses.push(`(ExecutionDuration >= ${filter.minDurationMs * 1_000_000} OR ${openFor(filter.minDurationMs, '<=')})`);
  if (filter.maxDurationMs !== undefined)
    clauses.push(`(ExecutionDuration <= ${filter.maxDurationMs * 1_000_000} OR ${openFor(filter.maxDurationMs, '>=')})`);
  return clauses.join(' AND ');
}

function statusClauses(status: RunListStatus | undefined): string[] {
  if (status === undefined) return [];
  if (status === 'running') return [`ExecutionStatus = 'Running'`];
  if (status === 'closed') return [`ExecutionStatus != 'Running'`];
  if (status === 'awaiting_approval' || status === 'idle')
    return [`ExecutionStatus = 'Running'`, `${AgentStatusAttribute.name} = ${quote(RUN_LIST_STATUSES[status])}`];
  return [`ExecutionStatus = ${quote(RUN_LIST_STATUSES[status])}`];
}
