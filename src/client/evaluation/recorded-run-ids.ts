// Which recorded runs an evaluation or a dataset export takes: ids given, or a visibility query.
import { isGrpcServiceError } from '@temporalio/client';
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import { AgentEvaluationAttribute, AgentForkOfAttribute } from '../../protocol/search-attributes';
import type { AgentClient } from '../agent-client';

/** Recorded runs by id, or by a visibility query (at most `limit`, default 50). */
export interface RecordedRunSelection {
  runs?: string[];
  query?: string;
  limit?: number;
}

/**
 * The recorded runs: the ids given, or the completed, top-level runs the query finds that are
 * neither evaluation runs nor forks. The query is matched against every execution of a run's
 * continue-as-new chain: a handoff starts a new execution under the next agent's `AgentName`, so
 * `AgentName='triage'` finds a run that triage handed off to billing by its first execution
 * (status continued-as-new); whether the run completed is then read from its latest execution.
 */
export async function recordedRunIds(agents: AgentClient, options: RecordedRunSelection): Promise<string[]> {
  if ((options.runs?.length ?? 0) > 0 === Boolean(options.query)) {
    throw new AgentRuntimeError(
      ErrorCode.evaluationRefused,
      'Give the recorded runs either by id (--runs) or by a query (--query), not both and not neither',
    );
  }
  if (options.runs?.length) return [...new Set(options.runs)];
  const limit = options.limit ?? 50;
  const ids: string[] = [];
  const seen = new Set<string>();
  try {
    for await (const execution of agents.temporal.workflow.list({ query: options.query })) {
      if (seen.has(execution.workflowId)) continue;
      seen.add(execution.workflowId);
      const status = execution.status.name;
      if ((status !== 'COMPLETED' && status !== 'CONTINUED_AS_NEW') || execution.parentExecution) continue;
      const latest = status === 'COMPLETED' ? execution : await agents.temporal.workflow.getHandle(execution.workflowId).describe();
      const attributes = latest.typedSearchAttributes;
      if (latest.status.name !== 'COMPLETED' || attributes.get(AgentEvaluationAttribute) || attributes.get(AgentForkOfAttribute)) continue;
      ids.push(execution.workflowId);
      if (ids.length >= limit) break;
    }
  } catch (error) {
    // The server refuses a query it cannot parse (or one naming an unknown attribute): bad input, not a failure.
    if (isInvalidArgument(error))
      throw new AgentRuntimeError(
        ErrorCode.evaluationRefused,
        `--query: the server refused the visibility query ${JSON.stringify(options.query)}: ${(error as Error).message}`,
      );
    throw error;
  }
  if (ids.length === 0) throw new AgentRuntimeError(ErrorCode.runNotFound, `No completed agent runs match the query: ${options.query}`);
  return ids;
}

function isInvalidArgument(error: unknown): boolean {
  // gRPC status 3 is INVALID_ARGUMENT; the SDK wraps the gRPC error in a ServiceError's cause.
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (isGrpcServiceError(current) && current.code === 3) return true;
  }
  return false;
}
