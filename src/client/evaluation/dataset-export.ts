// Recorded runs, read from their Temporal histories, as dataset examples (`eval export`).
import { AgentRuntimeError, ErrorCode } from '../../protocol/errors';
import type { AgentClient } from '../agent-client';
import type { DatasetExampleInput } from './dataset';
import { recordedRunIds, type RecordedRunSelection } from './recorded-run-ids';
import { readRunRecord, type RunRecord } from './run-record';

/**
 * Reads completed runs (by id or visibility query, as `evaluateRuns` takes them) and returns them
 * as dataset examples: the task and earlier messages, the config's name, every tool call with its
 * recorded result, the answer and structured output, and what the run cost. An example has no
 * `expected` part yet: people add expected answers and labels to the file. Forks and evaluation
 * runs are refused (their conversation did not start from their task).
 * @throws AgentRuntimeError `RunNotFound`, `EvaluationRefused` (a run not completed, a fork, an evaluation run).
 * @example
 * import { AgentClient, exportDataset, writeDataset } from 'durable-agents';
 *
 * const agents = await AgentClient.connect();
 * writeDataset('evals/support.jsonl', await exportDataset(agents, { query: "AgentName='support'", limit: 200 }));
 */
export async function exportDataset(agents: AgentClient, selection: RecordedRunSelection): Promise<DatasetExampleInput[]> {
  const ids = await recordedRunIds(agents, selection);
  const records = await Promise.all(ids.map((id) => readRunRecord(agents.temporal, id)));
  return records.map(toExample);
}

/** One recorded run as an example (its id is the run's workflow id). */
export function toExample(record: RunRecord): DatasetExampleInput {
  const { input, result } = record;
  if (input.fork)
    throw new AgentRuntimeError(
      ErrorCode.evaluationRefused,
      `run ${record.workflowId} is a fork of ${input.fork.workflowId}: export that run instead`,
    );
  if (input.replay)
    throw new AgentRuntimeError(
      ErrorCode.evaluationRefused,
      `run ${record.workflowId} is an evaluation run of ${input.replay.workflowId}: export that run instead`,
    );
  return {
    id: record.workflowId,
    task: input.task,
    ...(input.messages?.length ? { messages: input.messages.map((message) => ({ ...message })) } : {}),
    config: input.config.name,
    // Calls the workflow answered itself (handoffs, refusals) are part of the trajectory but have no tool result to replay.
    toolCalls: record.toolCalls.flatMap((call) =>
      call.result && !call.byWorkflow
        ? [
            {
              step: call.step,
              tool: call.tool,
              args: call.args ?? {},
              result: {
                content: call.result.content,
                isError: call.result.isError,
                ...(call.result.errorCode ? { errorCode: call.result.errorCode } : {}),
              },
            },
          ]
        : [],
    ),
    answer: result.output,
    ...(result.structuredOutput !== undefined ? { structuredOutput: result.structuredOutput } : {}),
    recorded: {
      workflowId: record.workflowId,
      steps: result.steps,
      stopReason: result.stopReason,
      tokensByModel: result.usage.byModel,
      wallTimeMs: record.wallTimeMs,
    },
    labels: [],
  };
}
